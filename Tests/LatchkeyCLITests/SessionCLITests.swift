import Foundation
import LatchkeyEmulator
import LatchkeyTestSupport
import Testing

/// Runs the CLI on a thread of its own: waiting for the child blocks, and the emulator
/// these tests start lives in this process's cooperative pool, which must stay free.
func runOffThePool(
    _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
    currentDirectory: URL? = nil, executable: String? = nil
) async throws -> JWTCLIRunner.Result {
    try await onThreadOfItsOwn {
        try JWTCLIRunner().run(arguments, stdin: stdin, environment: environment, executable: executable, currentDirectory: currentDirectory)
    }
}

/// `latchkey session`, end to end: the built executable against the emulator over
/// loopback, each command a new process sharing one encrypted-file store.
@Suite struct SessionCLITests {
    struct Setup {
        let directory: URL
        let environment: [String: String]

        init(emulator: Emulator) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-session-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let base = try #require(emulator.baseURL(for: .socialPlus))
            let config =
                #"{"provider": "socialplus", "settings": {"base_url": "\#(base.absoluteString)"}, "store": {"backend": "file", "namespace": "cli-session"}}"#
            try Data(config.utf8).write(to: directory.appendingPathComponent("latchkey.json"))
            environment = [
                "LATCHKEY_CONFIG": directory.appendingPathComponent("latchkey.json").path,
                "LATCHKEY_SETTING_API_KEY": emulator.seed.socialPlus.apiKey,
                "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
                "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            ]
        }

        func run(_ arguments: [String], stdin: String = "") async throws -> JWTCLIRunner.Result {
            try await runOffThePool(["session"] + arguments, stdin: stdin, environment: environment)
        }
    }

    @Test func theWholeLifeOfASession() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
        defer { Task { await emulator.stop() } }
        let setup = try Setup(emulator: emulator)
        defer { try? FileManager.default.removeItem(at: setup.directory) }

        let before = try await setup.run(["status"])
        #expect(before.status == 1, "not logged in: exit status 1")
        #expect(before.stdout.contains("notLoggedIn"))

        let login = try await setup.run(["login", "--user-id", "alice", "--display-name", "Alice"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Logged in as Alice (alice)"), "\(login.stdout)")

        let status = try await setup.run(["status", "--json"])
        #expect(status.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["state"] as? String == "established")
        #expect((object?["user"] as? [String: Any])?["id"] as? String == "alice")
        #expect((object?["user"] as? [String: Any])?["name"] as? String == "Alice")
        #expect(object?["logged_in"] as? Bool == true)

        let token = try await setup.run(["token"])
        #expect(token.status == 0)
        let accessToken = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!accessToken.isEmpty)
        #expect(!status.stdout.contains(accessToken) && !login.stdout.contains(accessToken), "only `token` prints the token")

        let refresh = try await setup.run(["refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let renewed = try await setup.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(renewed != accessToken)

        // A secure logout that the provider refuses changes nothing.
        await emulator.control.inject(
            EmulatorFault(route: EmulatorRoute(.socialPlus, "DELETE", "/api/v4/sessions"), kind: .status(500), trigger: .next(1)))
        let refused = try await setup.run(["logout", "--secure"])
        #expect(refused.status == 75, "a provider failing: retry later")
        #expect(try await setup.run(["status"]).status == 0, "still logged in")

        let logout = try await setup.run(["logout", "--secure"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try await setup.run(["status"]).status == 1)
        let noToken = try await setup.run(["token"])
        #expect(noToken.status == 1)
        #expect(noToken.stderr.contains("notLoggedIn"))
    }

    @Test func stytchPasswordLoginFromStandardInput() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
        defer { Task { await emulator.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = try #require(emulator.baseURL(for: .stytch))
        let seed = emulator.seed.stytch
        let config =
            #"{"provider": "stytch", "settings": {"public_token": "\#(seed.publicToken)", "app_identifier": "\#(seed.authorizedAppIdentifiers[0])", "base_url": "\#(base.absoluteString)"}, "store": {"backend": "file", "namespace": "cli-stytch"}}"#
        try Data(config.utf8).write(to: directory.appendingPathComponent("latchkey.json"))
        let environment = [
            "LATCHKEY_CONFIG": directory.appendingPathComponent("latchkey.json").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        let wrong = try await runOffThePool(
            ["session", "login", "--email", "alice@example.com", "--password-stdin"],
            stdin: "not-the-password\n", environment: environment)
        #expect(wrong.status == 77, "refused credentials")
        #expect(wrong.stderr.contains("unauthorized_credentials") || wrong.stderr.contains("unrecoverable"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-the-password"))
        let login = try await runOffThePool(
            ["session", "login", "--email", "alice@example.com", "--password-stdin"],
            stdin: "alice-password-1\n", environment: environment)
        #expect(login.status == 0, "\(login.stderr)")
        let status = try await runOffThePool(["session", "status"], environment: environment)
        #expect(status.status == 0)
        #expect(status.stdout.contains("established"))
        #expect(try await runOffThePool(["session", "logout", "--secure"], environment: environment).status == 0)
    }

    @Test func auth0PasswordLoginRefreshAndSecureLogout() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0]))
        defer { Task { await emulator.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let auth0 = try #require(emulator.auth0)
        let config =
            #"{"provider": "auth0", "settings": {"domain": "\#(auth0.domain)", "client_id": "\#(auth0.clientID)", "base_url": "\#(auth0.baseURL.absoluteString)"}, "store": {"backend": "file", "namespace": "cli-auth0"}}"#
        try Data(config.utf8).write(to: directory.appendingPathComponent("latchkey.json"))
        let environment = [
            "LATCHKEY_CONFIG": directory.appendingPathComponent("latchkey.json").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        let login = try await runOffThePool(
            ["session", "login", "--username", "alice@example.com", "--realm", auth0.connection, "--password-stdin"],
            stdin: "alice-password-1\n", environment: environment)
        #expect(login.status == 0, "\(login.stderr)")
        let first = try await runOffThePool(["session", "token"], environment: environment).stdout
        #expect(try await runOffThePool(["session", "refresh"], environment: environment).status == 0)
        let second = try await runOffThePool(["session", "token"], environment: environment).stdout
        #expect(first != second, "refresh gave a new access token")
        #expect(await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "refresh_token") == 1)
        #expect(try await runOffThePool(["session", "logout", "--secure"], environment: environment).status == 0)
        #expect(try await runOffThePool(["session", "status"], environment: environment).status == 1)
    }

    @Test func theDemoWalksEveryProviderAndSaysSo() async throws {
        let result = try await runOffThePool(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        for line in [
            "logged in as alice@example.com", "restored the session", "renewed transparently", "the device login completed",
            "terminated(globalBan)", "Every step behaved",
        ] {
            #expect(result.stdout.contains(line), "\(line)")
        }
    }

    @Test func usageAndConfigurationErrors() async throws {
        let missing = try await runOffThePool(["session", "status", "--config", "/nonexistent/latchkey.json"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("/nonexistent/latchkey.json"))
        let badSetting = try await runOffThePool(["session", "status", "--provider", "socialplus", "--setting", "oops"])
        #expect(badSetting.status == 64)
        let unknown = try await runOffThePool(["session", "status", "--provider", "okta"])
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("okta"))
    }
}
