import Foundation
import Synchronization
import Testing

/// `latchkey-token`: `latchkey session token` answered from the store while the stored
/// token lasts — no client, no request — and every other command line, or a token that
/// will not do, handed to `latchkey-full` (execv: same arguments, streams and status).
@Suite struct TokenToolTests {
    @Test(arguments: SessionCLIFixture.Provider.allCases)
    func theStoredTokenNeedsNeitherTheFullCLINorARequest(_ provider: SessionCLIFixture.Provider) async throws {
        let requests = RequestCounter()
        let fixture = try await SessionCLIFixture.start(provider, exchangeObserver: { _ in requests.count() })
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let expected = try await fixture.token()
        #expect(!expected.isEmpty)

        // Only the launcher and latchkey-token: latchkey-full is not there to run.
        let (directory, front) = try LauncherTests.launcher(with: ["latchkey-token"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = requests.value
        let config = fixture.environment["LATCHKEY_CONFIG"] ?? ""
        for arguments in [
            ["session", "token"], ["session", "token", "--config", config], ["session", "token", "--config=\(config)", "--min-ttl", "1m"],
            ["session", "token", "--min-ttl=30s"],
        ] {
            let result = try await runOffThePool(arguments, environment: fixture.environment, executable: front)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == expected + "\n", "\(arguments)")
            #expect(result.stderr.isEmpty, "\(arguments)")
        }
        #expect(requests.value == before, "no request while the stored token lasts")
    }

    @Test func everyOtherCommandLineBecomesTheFullCLI() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let (directory, front) = try LauncherTests.launcher(with: ["latchkey-token"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = fixture.environment["LATCHKEY_CONFIG"] ?? ""
        let handedOver = "error: latchkey: cannot run \(directory.path)/latchkey-full: No such file or directory\n"
        let commandLines: [[String]] = [
            ["--json"], ["--scope", "read"], ["--audience", "api"], ["--help"], ["-h"], ["--config", config, "--config", config],
            ["--min-ttl", "5"], ["--min-ttl", "-1s"], ["--min-ttl", "soon"], ["--config"], ["--config="], ["--config", "--json"],
            ["--provider", "stytch"], ["--auth-token-stdin"], ["extra"], ["--", "--config", config],
            // More than the token has left (the emulator's Stytch tokens live 5 minutes):
            // the full CLI renews, or says why not.
            ["--min-ttl", "1h"],
        ]
        for arguments in commandLines {
            let result = try await runOffThePool(["session", "token"] + arguments, environment: fixture.environment, executable: front)
            #expect(result.status == 70, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr == handedOver, "\(arguments): \(result.stderr)")
        }
        // The full CLI handles a trace and a named transport.
        for variable in ["LATCHKEY_TRACE", "LATCHKEY_TRANSPORT"] {
            var environment = fixture.environment
            environment[variable] = variable == "LATCHKEY_TRACE" ? fixture.directory.appendingPathComponent("trace.har").path : "async-http-client"
            let result = try await runOffThePool(["session", "token"], environment: environment, executable: front)
            #expect(result.status == 70, "\(variable)")
            #expect(result.stderr == handedOver, "\(variable): \(result.stderr)")
        }
        // So does a store with nothing in it, a missing configuration, and one that warns.
        _ = try await fixture.run(["logout"])
        let loggedOut = try await runOffThePool(["session", "token"], environment: fixture.environment, executable: front)
        #expect(loggedOut.status == 70)
        #expect(loggedOut.stderr == handedOver)
        var missing = fixture.environment
        missing["LATCHKEY_CONFIG"] = fixture.directory.appendingPathComponent("absent.json").path
        let noConfiguration = try await runOffThePool(["session", "token"], environment: missing, executable: front)
        #expect(noConfiguration.stderr == handedOver)
    }

    @Test func aConfigurationThatWarnsIsTheFullCLIsToWarnAbout() async throws {
        let fixture = try await SessionCLIFixture.start(.auth0)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        // The same endpoint, with a client secret in a file others can read.
        let path = try #require(fixture.environment["LATCHKEY_CONFIG"])
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var settings = try #require(object["settings"] as? [String: Any])
        settings["client_secret"] = "not-a-real-client-secret"
        object["settings"] = settings
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)

        let (directory, front) = try LauncherTests.launcher(with: ["latchkey-token"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = try await runOffThePool(["session", "token"], environment: fixture.environment, executable: front)
        #expect(alone.status == 70)
        #expect(alone.stderr.hasPrefix("error: latchkey: cannot run \(directory.path)/latchkey-full"), "\(alone.stderr)")
        // With the full CLI beside it (the build directory), the warning is printed once.
        let full = try await fixture.run(["token"])
        #expect(full.stderr.components(separatedBy: "holds the secret \"settings.client_secret\"").count == 2, "\(full.stderr)")
    }

    @Test func withTheFullCLIBesideItTheAnswerIsTheFullCLIs() async throws {
        let requests = RequestCounter()
        let fixture = try await SessionCLIFixture.start(.stytch, exchangeObserver: { _ in requests.count() })
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let before = requests.value
        // A usage error keeps the full CLI's spelling and status.
        let usage = try await fixture.run(["token", "--min-ttl", "5"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("error: latchkey session token: "), "\(usage.stderr)")
        // A token with less left than asked is renewed by the full CLI, which then says the
        // provider's tokens do not live that long.
        let long = try await fixture.run(["token", "--min-ttl", "1h"])
        #expect(long.status != 0)
        #expect(long.stderr.contains("largeMinTTL"), "\(long.stderr)")
        #expect(requests.value > before, "the full CLI renewed")
        // JSON is the full CLI's too.
        let json = try await fixture.json(["token"])
        #expect(json.result.status == 0)
        #expect(json.object["access_token"] as? String == (try await fixture.token()))
    }
}

/// Counts the emulator's exchanges.
final class RequestCounter: Sendable {
    private let counter = Atomic<Int>(0)
    func count() { counter.add(1, ordering: .relaxed) }
    var value: Int { counter.load(ordering: .relaxed) }
}
