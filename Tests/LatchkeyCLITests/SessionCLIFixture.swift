import Foundation
import LatchkeyEmulator
import LatchkeyTestSupport
import Testing

/// One emulated provider, a temporary directory holding a `latchkey.json` for it and an
/// encrypted-file store, and `latchkey session …` run as a new process against both.
struct SessionCLIFixture {
    /// The providers the session CLI logs in to.
    enum Provider: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case stytch
        case stytchB2B = "stytch-b2b"
        case auth0
        case socialPlus = "socialplus"

        var testDescription: String { rawValue }

        var emulated: EmulatorProvider {
            switch self {
            case .stytch, .stytchB2B: .stytch
            case .auth0: .auth0
            case .socialPlus: .socialPlus
            }
        }
    }

    /// The app identifier the Stytch configurations send.
    static let stytchAppIdentifier = StytchSeed.defaultAppIdentifier

    let provider: Provider
    let emulator: Emulator
    let directory: URL
    let environment: [String: String]

    static func start(
        _ provider: Provider, seed: EmulatorSeed = .standard,
        exchangeObserver: (@Sendable (EmulatorExchange) -> Void)? = nil
    ) async throws -> SessionCLIFixture {
        var options = EmulatorOptions(providers: [provider.emulated], seed: seed)
        options.exchangeObserver = exchangeObserver
        let emulator = try await Emulator.start(options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let settings: String
        var environment = [
            "LATCHKEY_CONFIG": directory.appendingPathComponent("latchkey.json").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        switch provider {
        case .stytch, .stytchB2B:
            let base = try #require(emulator.baseURL(for: .stytch))
            settings =
                #"{"public_token": "\#(emulator.seed.stytch.publicToken)", "base_url": "\#(base.absoluteString)", "app_identifier": "\#(stytchAppIdentifier)"}"#
        case .auth0:
            let auth0 = try #require(emulator.auth0)
            settings = #"{"domain": "\#(auth0.domain)", "client_id": "\#(auth0.clientID)", "base_url": "\#(auth0.baseURL.absoluteString)"}"#
        case .socialPlus:
            let base = try #require(emulator.baseURL(for: .socialPlus))
            settings = #"{"base_url": "\#(base.absoluteString)"}"#
            environment["LATCHKEY_SETTING_API_KEY"] = emulator.seed.socialPlus.apiKey
        }
        let config =
            #"{"provider": "\#(provider.rawValue)", "settings": \#(settings), "store": {"backend": "file", "namespace": "cli-\#(provider.rawValue)"}}"#
        try Data(config.utf8).write(to: directory.appendingPathComponent("latchkey.json"))
        return SessionCLIFixture(provider: provider, emulator: emulator, directory: directory, environment: environment)
    }

    func stop() async {
        await emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `latchkey session <arguments>`.
    func run(_ arguments: [String], stdin: String = "", environment extra: [String: String] = [:]) async throws -> JWTCLIRunner.Result {
        try await runOffThePool(["session"] + arguments, stdin: stdin, environment: environment.merging(extra) { $1 })
    }

    /// `latchkey session <arguments>` without a controlling terminal (setsid): what a script
    /// sees; `descriptor3`, when given, is what the command reads on file descriptor 3 (as
    /// `3<file`), byte for byte.
    func runDetached(_ arguments: [String], stdin: String = "", descriptor3: String? = nil) async throws -> JWTCLIRunner.Result {
        let latchkey = try JWTCLIRunner().executablePath()
        let file = directory.appendingPathComponent("code-\(UUID().uuidString)")
        try Data((descriptor3 ?? "").utf8).write(to: file)
        let script = "exec \"$0\" \"$@\"" + (descriptor3 == nil ? "" : " 3<\"$LATCHKEY_TEST_CODE_FILE\"")
        let environment = environment.merging(["LATCHKEY_TEST_CODE_FILE": file.path]) { $1 }
        return try await onThreadOfItsOwn {
            try JWTCLIRunner().run(
                ["--wait", "/bin/sh", "-c", script, latchkey, "session"] + arguments, stdin: stdin,
                environment: environment, executable: "/usr/bin/setsid")
        }
    }

    /// `latchkey session <arguments> --json`, its one JSON object parsed.
    func json(_ arguments: [String], stdin: String = "") async throws -> (result: JWTCLIRunner.Result, object: [String: Any]) {
        let result = try await run(arguments + ["--json"], stdin: stdin)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (result, try #require(object, "one JSON object on stdout: \(result.stdout) \(result.stderr)"))
    }

    /// The arguments and standard input of a password login as the seed's first user of
    /// this provider (social.plus: `alice`), or with a wrong password.
    func passwordLogin(wrong: Bool = false) -> (arguments: [String], stdin: String) {
        switch provider {
        case .stytch:
            return (["login", "--email", "alice@example.com", "--password-stdin"], wrong ? "not-the-password\n" : "alice-password-1\n")
        case .stytchB2B:
            let acme = emulator.seed.stytch.organizations[0].organizationID
            return (
                ["login", "--organization-id", acme, "--email", "bob@acme.example", "--password-stdin"],
                wrong ? "not-the-password\n" : "bob-password-1\n"
            )
        case .auth0:
            return (
                ["login", "--username", "alice@example.com", "--realm", emulator.seed.auth0.connection, "--password-stdin"],
                wrong ? "not-the-password\n" : "alice-password-1\n"
            )
        case .socialPlus:
            return (["login", "--user-id", "alice", "--display-name", "Alice"], "")
        }
    }

    /// Logs in as the seed's first user; fails the test if that fails.
    func logIn() async throws {
        let login = passwordLogin()
        let result = try await run(login.arguments, stdin: login.stdin)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The access token `session token` prints.
    func token() async throws -> String {
        let result = try await run(["token"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The stored session file's bytes (the encrypted store's entries live in one directory).
    func storeSnapshot() throws -> [String: Data] {
        let root = directory.appendingPathComponent("data")
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return files }
        for case let url as URL in walker where !url.hasDirectoryPath && !url.lastPathComponent.hasSuffix(".lock") {
            files[url.path] = try Data(contentsOf: url)
        }
        return files
    }
}
