import Foundation
import LatchkeyEmulator
import Testing

/// The configuration as a command line meets it: `--backend` and `--namespace` on every
/// session subcommand, `--provider` taking none of another provider's settings, and usage
/// errors that name their subcommand with the tool's one `error:` prefix.
@Suite struct SessionConfigOptionsTests {
    @Test func aNamespaceKeepsItsOwnSession() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        #expect(try await fixture.run(["status"]).status == 0)
        #expect(try await fixture.run(["status", "--namespace", "work"]).status == 1, "another namespace holds no session")
        let login = try await fixture.run(["login", "--user-id", "bob", "--display-name", "Bob", "--namespace", "work"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try await fixture.run(["logout"]).status == 0)
        #expect(try await fixture.run(["status", "--namespace", "work"]).status == 0, "logging out of one namespace leaves the other")
        #expect(try await fixture.run(["status"]).status == 1)
        #expect(try await fixture.run(["status", "--backend", "memory"]).status == 1, "a memory store starts empty in each process")
    }

    @Test func aBadBackendIsAUsageErrorNamingTheSubcommand() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let result = try await fixture.run(["status", "--backend", "floppy"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: latchkey session status: --backend takes one of"), "\(result.stderr)")
        let unknown = try await fixture.run(["login", "--frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("error: latchkey session login: "), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("Error:"), "one spelling of the prefix")
        #expect(try await fixture.run(["status", "--namespace", ""]).status == 64)
    }

    /// Asked for by name, the Secret Service is used or the command fails saying why —
    /// never a silent switch to another store (no session bus here).
    @Test func aChosenSecretServiceThatDoesNotAnswerIsAStorageError() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": ""]
        for (arguments, environment) in [
            (["status", "--backend", "secret-service"], noBus),
            (["status"], noBus.merging(["LATCHKEY_STORE_BACKEND": "secret-service"]) { $1 }),
        ] {
            let result = try await fixture.run(arguments, environment: environment)
            #expect(result.status == 74, "\(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("the secret-service backend was chosen, but no Secret Service answers"), "\(result.stderr)")
        }
    }

    @Test func anotherProviderOnTheCommandLineTakesNoneOfTheFilesSettings() async throws {
        // The file is Stytch's; the command line asks for social.plus at the same emulator.
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let result = try await fixture.run(
            ["status", "--provider", "socialplus", "--setting", "base_url=http://127.0.0.1:9/"],
            environment: ["LATCHKEY_SETTING_API_KEY": "key-from-the-environment"])
        #expect(
            !result.stderr.contains("public_token") && !result.stderr.contains("app_identifier"),
            "Stytch's settings do not reach social.plus: \(result.stderr)")
        #expect(result.status == 1, "not logged in with social.plus: \(result.stderr)")
    }

    /// `--transport` and `$LATCHKEY_TRANSPORT`: every session command runs on either HTTP
    /// transport, and an unknown one is refused before anything is sent.
    @Test(arguments: ["urlsession", "async-http-client"])
    func everyCommandRunsOnEitherTransport(transport: String) async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let login = try await fixture.run(["login", "--user-id", "alice", "--display-name", "Alice", "--transport", transport])
        #expect(login.status == 0, "\(login.stderr)")
        let status = try await fixture.run(["status", "--transport", transport])
        #expect(status.status == 0, "\(status.stderr)")
        let first = try await fixture.run(["token"], environment: ["LATCHKEY_TRANSPORT": transport])
        #expect(first.status == 0, "\(first.stderr)")
        let refresh = try await fixture.run(["refresh"], environment: ["LATCHKEY_TRANSPORT": transport])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let second = try await fixture.run(["token", "--transport", transport])
        #expect(second.status == 0 && second.stdout != first.stdout, "the renewal replaced the token: \(second.stderr)")
        #expect(try await fixture.run(["logout", "--transport", transport]).status == 0)
    }

    @Test func anUnknownTransportIsRefused() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let option = try await fixture.run(["status", "--transport", "carrier-pigeon"])
        #expect(option.status == 64)
        #expect(option.stderr.hasPrefix("error: latchkey session status: --transport takes one of urlsession, async-http-client"), "\(option.stderr)")
        let environment = try await fixture.run(["status"], environment: ["LATCHKEY_TRANSPORT": "carrier-pigeon"])
        #expect(environment.status != 0)
        #expect(environment.stderr.contains("LATCHKEY_TRANSPORT takes urlsession or async-http-client"), "\(environment.stderr)")
    }
}
