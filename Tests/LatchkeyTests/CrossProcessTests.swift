import Foundation
import Glibc
@_spi(Benchmarks) import Latchkey
import LatchkeyJSON
import LatchkeySecrets
import LatchkeyTestSupport
import Testing

/// A provider whose "server" is a file shared by processes: every renewal appends a line
/// to the counter file, so the parent can count renewals across processes.
struct FileCountingProvider: AuthProvider {
    let identifier = "crossproc"
    let counterFile: String
    let renewDelay: Duration

    static func tokens(_ tag: String, lifetime: TimeInterval) -> SessionTokens {
        SessionTokens(
            accessToken: "access-\(tag)", refreshToken: "refresh-\(tag)", issuedAt: Date(),
            expiresAt: Date().addingTimeInterval(lifetime))
    }

    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        AuthenticatedSession(tokens: Self.tokens("login", lifetime: -1), user: User(id: "user-1"))
    }

    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        AuthenticatedSession(tokens: current.tokens)
    }

    func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        let line = "\(getpid())\n"
        let fd = open(counterFile, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        try await Task.sleep(for: renewDelay)
        return AuthenticatedSession(tokens: Self.tokens("\(getpid())-\(UInt64.random(in: 0 ... .max))", lifetime: 3600))
    }

    func revoke(_ current: AuthenticatedSession) async throws {}
}

/// The child side: re-runs of this test binary with `LATCHKEY_CORE_CHILD` set.
@Suite struct SessionChildEntry {
    @Test func helper() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["LATCHKEY_CORE_CHILD"] else { return }
        exitWhenOrphaned()
        let configuration = SecretStoreConfiguration(
            dataDirectory: environment["LATCHKEY_DATA_DIR"], configDirectory: environment["LATCHKEY_CONFIG_DIR"])
        let output = environment["LATCHKEY_OUTPUT"] ?? "/dev/null"
        var status: Int32 = 0
        do {
            let store = try EncryptedFileSecretStore(namespace: "crossproc", configuration: configuration)
            let provider = FileCountingProvider(
                counterFile: environment["LATCHKEY_COUNTER"] ?? "/dev/null",
                renewDelay: .milliseconds(Int(environment["LATCHKEY_RENEW_DELAY_MS"] ?? "0") ?? 0))
            let client = AuthClient(
                provider: provider, store: store,
                options: SessionOptions(heartbeatInterval: nil, renewsProactively: false), transport: URLSessionTransport())
            try await client.start()
            switch mode {
            case "access-token":
                let token = try await client.accessToken()
                try Data(token.utf8).write(to: URL(fileURLWithPath: output))
            case "renew-loop":
                try Data("started".utf8).write(to: URL(fileURLWithPath: output))
                while true { try await client.renew() }
            default:
                status = 2
            }
        } catch {
            try? Data("error: \(error)".utf8).write(to: URL(fileURLWithPath: output))
            status = 1
        }
        exit(status)
    }
}

/// Renewal across processes that share an encrypted-file store, with real processes.
@Suite struct CrossProcessTests {
    struct Setup {
        let directory: String
        let configuration: SecretStoreConfiguration
        let counter: String

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-core-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            configuration = SecretStoreConfiguration(dataDirectory: directory + "/data", configDirectory: directory + "/config")
            counter = directory + "/renewals"
        }

        func store() throws -> EncryptedFileSecretStore {
            try EncryptedFileSecretStore(namespace: "crossproc", configuration: configuration)
        }

        /// Logs in from this process; the stored access token has already expired.
        func loginExpired() async throws {
            let client = AuthClient(
                provider: FileCountingProvider(counterFile: counter, renewDelay: .zero), store: try store(),
                options: SessionOptions(heartbeatInterval: nil, renewsProactively: false), transport: URLSessionTransport())
            try await client.start()
            try await client.login(ScriptedCredentials(user: "user-1", password: ""))
            await client.shutdown()
        }

        func child(_ mode: String, output: String, delayMilliseconds: Int = 0) -> Process {
            let process = Process()
            process.executableURL = URL(
                fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            process.arguments = ["--testing-library", "swift-testing", "--filter", "SessionChildEntry"]
            var environment = ProcessInfo.processInfo.environment
            environment["LATCHKEY_CORE_CHILD"] = mode
            environment["LATCHKEY_DATA_DIR"] = configuration.dataDirectory
            environment["LATCHKEY_CONFIG_DIR"] = configuration.configDirectory
            environment["LATCHKEY_COUNTER"] = counter
            environment["LATCHKEY_OUTPUT"] = output
            environment["LATCHKEY_RENEW_DELAY_MS"] = String(delayMilliseconds)
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }

        var renewals: Int {
            ((try? String(contentsOfFile: counter, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
    }

    @Test func twoProcessesNeedingARenewalMakeOne() async throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        try await setup.loginExpired()
        let outputs = [setup.directory + "/a", setup.directory + "/b"]
        let children = outputs.map { setup.child("access-token", output: $0, delayMilliseconds: 300) }
        for child in children { try child.run() }
        for child in children {
            while child.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            #expect(child.terminationStatus == 0)
        }
        let tokens = try outputs.map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(tokens[0].hasPrefix("access-"), "\(tokens[0])")
        #expect(tokens[0] == tokens[1], "both processes use the one renewed token")
        #expect(setup.renewals == 1, "exactly one renewal across the two processes")
    }

    @Test func aProcessKilledDuringRenewalNeverCorruptsTheVault() async throws {
        let setup = try Setup()
        defer { try? FileManager.default.removeItem(atPath: setup.directory) }
        try await setup.loginExpired()
        let marker = setup.directory + "/started"
        var accessTokens: Set<String> = []
        for round in 0..<100 {
            unlink(marker)
            let child = setup.child("renew-loop", output: marker)
            try child.run()
            let deadline = ContinuousClock.now + .seconds(20)
            // Wait until the child has started and finished a renewal in this round (its
            // second has begun: the loop renews one after another, and a renewal is counted
            // as it starts, before its save), so every kill lands in a renewal loop that is
            // really running and the vault has moved on, however slowly a loaded machine
            // starts processes and syncs files; then kill it at a random point.
            let before = setup.renewals
            while access(marker, F_OK) != 0 || setup.renewals < before + 2, child.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .microseconds(200))
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000)))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()

            let raw = try #require(try await setup.store().get("session"), "round \(round): the vault is gone")
            guard let tokens = try? StoredSessionRecord(decoding: raw, provider: "crossproc").tokens,
                let refresh = tokens.refreshToken
            else {
                Issue.record("round \(round): the vault does not decode")
                continue
            }
            let access = tokens.accessToken
            #expect(
                access.dropFirst("access-".count) == refresh.dropFirst("refresh-".count),
                "round \(round): a mixed token set \(access) / \(refresh)")
            accessTokens.insert(access)
        }
        #expect(setup.renewals >= 200, "the children were renewing when killed")
        #expect(accessTokens.count > 50, "the vault moved on between kills")
        // And the client itself restores from it.
        let client = AuthClient(
            provider: FileCountingProvider(counterFile: setup.counter, renewDelay: .zero), store: try setup.store(),
            options: SessionOptions(heartbeatInterval: nil, renewsProactively: false), transport: URLSessionTransport())
        try await client.start()
        #expect(client.state == .established)
        await client.shutdown()
    }
}
