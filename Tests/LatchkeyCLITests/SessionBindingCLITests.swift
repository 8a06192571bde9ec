import Foundation
import Glibc
import LatchkeyEmulator
import LatchkeyTestSupport
import Testing

/// Which configuration may use a stored session, and what `latchkey session` says about
/// configurations and their secrets.
@Suite struct SessionBindingCLITests {
    /// A temporary home (XDG directories) and a project directory with its own
    /// `latchkey.json`; configurations without a namespace share the default one.
    struct Home {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-binding-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        var environment: [String: String] {
            [
                "XDG_DATA_HOME": root.appendingPathComponent("data").path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                "LATCHKEY_STORE_BACKEND": "file",
            ]
        }

        /// A directory holding `latchkey.json` with `json`, mode `mode`.
        func project(_ name: String, _ json: String, mode: Int = 0o644) throws -> URL {
            let directory = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("latchkey.json")
            try Data(json.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
            return directory
        }

        func run(
            _ arguments: [String], in directory: URL, environment extra: [String: String] = [:], stdin: String = ""
        ) async throws -> JWTCLIRunner.Result {
            try await runOffThePool(
                ["session"] + arguments, stdin: stdin, environment: environment.merging(extra) { _, new in new },
                currentDirectory: directory)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func aClonedConfigurationWithAnotherBaseURLNeitherGetsNorClearsTheSession() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
        defer { Task { await emulator.stop() } }
        // The other server refuses everything, as a hostile or stale one would.
        let other = try HostileHTTPServer { _ in HostileHTTPServer.json(401, #"{"status": "error", "code": 400100, "message": "Unauthorized"}"#) }
        defer { other.stop() }
        let home = try Home()
        defer { home.remove() }
        let key = ["LATCHKEY_SETTING_API_KEY": emulator.seed.socialPlus.apiKey]
        let base = try #require(emulator.baseURL(for: .socialPlus))
        let app = try home.project("app", #"{"provider": "socialplus", "settings": {"base_url": "\#(base.absoluteString)"}}"#)
        let clone = try home.project("clone", #"{"provider": "socialplus", "settings": {"base_url": "\#(other.url.absoluteString)"}}"#)

        let login = try await home.run(["login", "--user-id", "alice"], in: app, environment: key)
        #expect(login.status == 0, "\(login.stderr)")

        for command in [["status"], ["token"], ["refresh"], ["logout", "--secure"], ["logout"]] {
            let result = try await home.run(command, in: clone, environment: key)
            #expect(result.stderr.contains("\"base_url\""), "\(command): \(result.stderr)")
            #expect(!result.stdout.contains("alice"))
        }
        #expect(other.requests.isEmpty, "the stored access token never went to the clone's server")

        let status = try await home.run(["status"], in: app, environment: key)
        #expect(status.status == 0, "the session survived: \(status.stderr)")
        #expect(status.stdout.contains("established"))
    }

    @Test func anotherAPIKeyIsAnotherEndpointAndTheKeyIsNeverShown() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
        defer { Task { await emulator.stop() } }
        let home = try Home()
        defer { home.remove() }
        let base = try #require(emulator.baseURL(for: .socialPlus))
        let app = try home.project("app", #"{"provider": "socialplus", "settings": {"base_url": "\#(base.absoluteString)"}}"#)
        let login = try await home.run(
            ["login", "--user-id", "alice"], in: app, environment: ["LATCHKEY_SETTING_API_KEY": emulator.seed.socialPlus.apiKey])
        #expect(login.status == 0, "\(login.stderr)")
        let other = try await home.run(["status"], in: app, environment: ["LATCHKEY_SETTING_API_KEY": "another-key-entirely"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("\"api_key\""), "\(other.stderr)")
        #expect(!other.stderr.contains("another-key-entirely") && !other.stderr.contains(emulator.seed.socialPlus.apiKey))
    }

    @Test func anImplicitConfigurationOfAnotherUserOrWritableByOthersIsRefused() async throws {
        let home = try Home()
        defer { home.remove() }
        let json = #"{"provider": "socialplus", "settings": {"base_url": "http://127.0.0.1:9/", "api_key": "k"}}"#
        let foreign = try home.project("foreign", json)
        try #require(chown(foreign.appendingPathComponent("latchkey.json").path, 65534, 65534) == 0, "the tests run as root")
        let refused = try await home.run(["status"], in: foreign)
        #expect(refused.status == 78, "a configuration error (EX_CONFIG)")
        #expect(refused.stderr.contains("belongs to uid 65534"), "\(refused.stderr)")
        #expect(refused.stderr.contains("LATCHKEY_CONFIG"))

        let writable = try home.project("writable", json, mode: 0o666)
        let open = try await home.run(["status"], in: writable)
        #expect(open.status == 78, "a configuration error (EX_CONFIG)")
        #expect(open.stderr.contains("writable by others"), "\(open.stderr)")

        // Named on purpose, either file is used.
        let pinned = try await home.run(["status", "--config", foreign.appendingPathComponent("latchkey.json").path], in: home.root)
        #expect(pinned.status == 1, "not logged in")
        #expect(pinned.stdout.contains("notLoggedIn"), "\(pinned.stderr)")
        let fine = try home.project("fine", json)
        #expect(try await home.run(["status"], in: fine).stdout.contains("notLoggedIn"))
    }

    @Test(arguments: ["api_key=\u{200D}k", "api_key=\u{0301}k", "api_key=k\u{200D}", "region=eu\u{0301}"])
    func aSettingWithAJoinerOrACombiningMarkAfterTheEqualsSignIsSplitThere(setting: String) async throws {
        let home = try Home()
        defer { home.remove() }
        let result = try await home.run(
            ["status", "--provider", "socialplus", "--setting", "base_url=http://127.0.0.1:9/", "--setting", setting],
            in: home.root)
        #expect([1, 64, 78].contains(result.status), "no crash: status \(result.status), \(result.stderr)")
    }

    @Test(arguments: ["=\u{0301}", "\u{200D}", "=value"])
    func aSettingWithoutANameIsAUsageError(setting: String) async throws {
        let home = try Home()
        defer { home.remove() }
        let result = try await home.run(["status", "--provider", "socialplus", "--setting", setting], in: home.root)
        #expect(result.status == 64, "\(result.stderr)")
    }

    @Test func secretsOthersCanReadAreWarnedAboutOnStandardError() async throws {
        let home = try Home()
        defer { home.remove() }
        let json =
            #"{"provider": "auth0", "settings": {"domain": "tenant.example.com", "client_id": "c", "client_secret": "inline-secret-1", "base_url": "http://127.0.0.1:9/"}}"#
        let readable = try home.project("readable", json, mode: 0o644)
        let warned = try await home.run(["status"], in: readable)
        #expect(warned.stderr.contains("warning:"), "\(warned.stderr)")
        #expect(warned.stderr.contains("others can read it"), "\(warned.stderr)")
        #expect(warned.stderr.contains("LATCHKEY_SETTING_CLIENT_SECRET"))
        #expect(!warned.stderr.contains("inline-secret-1"))

        let private_ = try home.project("private", json, mode: 0o600)
        let quieter = try await home.run(["status"], in: private_)
        #expect(quieter.stderr.contains("is a secret written in the configuration file"), "\(quieter.stderr)")
        #expect(!quieter.stderr.contains("others can read it"))

        let argv = try await home.run(
            [
                "status", "--provider", "auth0", "--setting", "domain=tenant.example.com", "--setting", "client_id=c",
                "--setting", "base_url=http://127.0.0.1:9/", "--setting", "client_secret=argv-secret-1",
            ], in: home.root)
        #expect(argv.stderr.contains("command line"), "\(argv.stderr)")
        #expect(argv.stderr.contains("LATCHKEY_SETTING_CLIENT_SECRET"))
        #expect(!argv.stderr.contains("argv-secret-1"))
    }

    @Test func aStoredTokenOutsideTheBearerSyntaxIsNotPrinted() async throws {
        // A record an older build stored without checking its token (format 1, unbound).
        let home = try Home()
        defer { home.remove() }
        let record =
            #"{"format":1,"provider":"socialplus","tokens":{"access_token":"tok\u001b]0;pwned\u0007\u202egnp","issued_at":1769673600,"#
            + #""expires_at":4102444800,"attributes":{"user_id":"alice","login":"userID"}},"last_validated_at":1769673600}"#
        let stored = try await runOffThePool(
            ["secrets", "set", "--namespace", "latchkey", "--backend", "file", "session"], stdin: record,
            environment: home.environment, currentDirectory: home.root)
        #expect(stored.status == 0, "\(stored.stderr)")
        let token = try await home.run(
            ["token", "--provider", "socialplus", "--setting", "base_url=http://127.0.0.1:9/", "--setting", "api_key=k"],
            in: home.root)
        #expect(token.status == 74, "the stored record is unusable (EX_IOERR)")
        #expect(token.stderr.contains("not printed"), "\(token.stderr)")
        #expect(!token.stdout.contains("\u{1B}") && !token.stdout.contains("\u{202E}") && !token.stdout.contains("pwned"))
    }
}
