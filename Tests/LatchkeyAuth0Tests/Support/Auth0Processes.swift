import Foundation
import Glibc
@_spi(Benchmarks) import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeySecrets
import LatchkeyTestSupport
import Testing

/// What a process needs to open the shared session: the tenant, the encrypted-file
/// store (the kind a real app uses on Linux, with its cross-process lock) and the time
/// on the client's clock. Passed to child processes in their environment.
struct Auth0ProcessSetup: Sendable {
    var domain: String
    var baseURL: URL
    var clientID: String
    var dataDirectory: String
    var configDirectory: String
    var namespace: String

    init(domain: String, baseURL: URL, clientID: String, directory: String, namespace: String) {
        self.domain = domain
        self.baseURL = baseURL
        self.clientID = clientID
        dataDirectory = directory + "/data"
        configDirectory = directory + "/config"
        self.namespace = namespace
    }

    init?(environment: [String: String]) {
        guard let domain = environment["LATCHKEY_AUTH0_DOMAIN"], let base = environment["LATCHKEY_AUTH0_BASE_URL"].flatMap(URL.init(string:)),
            let clientID = environment["LATCHKEY_AUTH0_CLIENT_ID"],
            let data = environment["LATCHKEY_DATA_DIR"], let config = environment["LATCHKEY_CONFIG_DIR"],
            let namespace = environment["LATCHKEY_NAMESPACE"]
        else { return nil }
        self.domain = domain
        baseURL = base
        self.clientID = clientID
        dataDirectory = data
        configDirectory = config
        self.namespace = namespace
    }

    func environment(now: Date) -> [String: String] {
        [
            "LATCHKEY_AUTH0_DOMAIN": domain, "LATCHKEY_AUTH0_BASE_URL": baseURL.absoluteString, "LATCHKEY_AUTH0_CLIENT_ID": clientID,
            "LATCHKEY_DATA_DIR": dataDirectory,
            "LATCHKEY_CONFIG_DIR": configDirectory, "LATCHKEY_NAMESPACE": namespace, "LATCHKEY_NOW": String(now.timeIntervalSince1970),
        ]
    }

    func store() throws -> EncryptedFileSecretStore {
        try EncryptedFileSecretStore(
            namespace: namespace,
            configuration: SecretStoreConfiguration(dataDirectory: dataDirectory, configDirectory: configDirectory))
    }

    /// A client as an app builds it: the Auth0 adapter over real HTTP on the shared store,
    /// on a clock that reads `now` (no heartbeat or background renewal: only what the
    /// test asks).
    func client(now: Date) throws -> AuthClient {
        let clock = ManualClock(now: now)
        let provider = Auth0Provider(
            configuration: try Auth0Configuration(domain: domain, clientID: clientID, baseURL: baseURL),
            transport: URLSessionTransport(), clock: clock)
        return AuthClient(
            provider: provider, store: try store(), options: SessionOptions(heartbeatInterval: nil, renewsProactively: false),
            transport: URLSessionTransport(), clock: clock)
    }
}

/// What the store holds, read as a new process would: decoded by the client's own codec
/// first, then its tokens.
struct StoredAuth0Session: Sendable {
    var accessToken: String
    var refreshToken: String

    static func read(_ setup: Auth0ProcessSetup) async throws -> StoredAuth0Session? {
        guard let bytes = try await setup.store().get(SessionOptions().vaultEntryName) else { return nil }
        let tokens = try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens
        guard let refresh = tokens.refreshToken else {
            Issue.record("the stored session has no refresh token")
            return nil
        }
        return StoredAuth0Session(accessToken: tokens.accessToken, refreshToken: refresh)
    }
}

/// The parent side: the emulator in this process, a temporary directory, and child
/// processes that are re-runs of this test binary (``Auth0ChildEntry``).
struct Auth0Processes: Sendable {
    let emulator: Emulator
    let auth0: Auth0Endpoint
    let directory: String

    static func start(seed: Auth0Seed = .standard) async throws -> Auth0Processes {
        var options = EmulatorOptions(providers: [.auth0], clockStart: Auth0Harness.start)
        options.seed.auth0 = seed
        let emulator = try await Emulator.start(options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-auth0-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return Auth0Processes(emulator: emulator, auth0: try #require(emulator.auth0), directory: directory)
    }

    func stop() async {
        await emulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var control: EmulatorControl { emulator.control }

    func refreshGrants() async -> Int {
        await control.count(tokenRoute, grant: "refresh_token")
    }

    /// Logs alice in from this process into a new store, then moves the emulator a day
    /// and a second on: for a client on the emulator's time the stored access token has
    /// expired. Returns the store and the refresh token the login stored.
    func loggedInStore(_ namespace: String) async throws -> (Auth0ProcessSetup, refreshToken: String) {
        let setup = Auth0ProcessSetup(
            domain: auth0.domain, baseURL: auth0.baseURL, clientID: auth0.clientID, directory: directory, namespace: namespace)
        let client = try setup.client(now: control.now)
        try await client.start()
        try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1", realm: auth0.connection))
        await client.shutdown()
        control.advanceClock(by: 86_401)
        let stored = try #require(try await StoredAuth0Session.read(setup))
        return (setup, stored.refreshToken)
    }

    /// A child process in `mode` on `setup`'s store, at the emulator's current time.
    func child(_ mode: String, setup: Auth0ProcessSetup, output: String, extra: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "Auth0ChildEntry"]
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_AUTH0_CHILD"] = mode
        environment["LATCHKEY_OUTPUT"] = output
        environment.merge(setup.environment(now: control.now)) { _, new in new }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: output + ".stderr", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: output + ".stderr") ?? FileHandle.nullDevice
        return process
    }
}

/// Waits for a child to exit by polling, never blocking a thread of the cooperative pool
/// (the emulator answering the child runs on it). A child still running at the deadline
/// is killed and `false` returned.
func waitForExit(_ process: Process, timeout: Duration = .seconds(90)) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
        if ContinuousClock.now > deadline {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
            return false
        }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Polls `condition` (real time) until it holds; `false` after `timeout`.
func poll(timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(1), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return await condition()
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// The child side: re-runs of this test binary with `LATCHKEY_AUTH0_CHILD` set; without
/// it, this test does nothing.
///
/// - `access-tokens`: opens the client, says it is ready (`<output>.ready`), waits for
///   `LATCHKEY_GO` to exist, then makes `LATCHKEY_CALLS` concurrent `accessToken()`
///   calls and writes the tokens, one a line.
/// - `renew`: opens the client, says it started (`<output>.started`), asks for a token
///   (the stored one has expired: a renewal) and writes it.
@Suite struct Auth0ChildEntry {
    @Test func helper() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["LATCHKEY_AUTH0_CHILD"] else { return }
        exitWhenOrphaned()
        let output = environment["LATCHKEY_OUTPUT"] ?? "/dev/null"
        var status: Int32 = 0
        do {
            guard let setup = Auth0ProcessSetup(environment: environment), let now = environment["LATCHKEY_NOW"].flatMap(Double.init) else {
                throw AuthError(.configuration, "the child's environment is incomplete")
            }
            let client = try setup.client(now: Date(timeIntervalSince1970: now))
            try await client.start(validating: false)
            switch mode {
            case "access-tokens":
                try Data("ready".utf8).write(to: URL(fileURLWithPath: output + ".ready"))
                let go = environment["LATCHKEY_GO"] ?? "/"
                while !fileExists(go) { try await Task.sleep(for: .milliseconds(1)) }
                let calls = Int(environment["LATCHKEY_CALLS"] ?? "1") ?? 1
                let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<calls { group.addTask { try await client.accessToken() } }
                    var all: [String] = []
                    for try await token in group { all.append(token) }
                    return all
                }
                try Data(tokens.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: output))
            case "renew":
                try Data("started".utf8).write(to: URL(fileURLWithPath: output + ".started"))
                let token = try await client.accessToken()
                try Data(token.utf8).write(to: URL(fileURLWithPath: output))
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
