import Foundation
import Glibc
import LatchkeyPostgres
import LatchkeySecrets
import Synchronization
import Testing

/// A private temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/latchkey-secrets-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A configuration whose data and config directories live in this directory.
    func configuration(keySource: FileKeySource = .keyFile, scrypt: ScryptParameters = TestDefaults.fastScrypt) -> SecretStoreConfiguration {
        SecretStoreConfiguration(
            dataDirectory: path + "/data/latchkey", configDirectory: path + "/config/latchkey",
            keySource: keySource, scrypt: scrypt)
    }
}

enum TestDefaults {
    /// Cheap scrypt for tests that are not about scrypt cost.
    static let fastScrypt = try! ScryptParameters(log2N: 10, r: 8, p: 1)
}

/// A namespace no other test (or earlier run) uses.
func uniqueNamespace(_ label: String = "test") -> String {
    "latchkey-test-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
}

/// Whether the kernel keyring works here; keyring tests skip (loudly) when it does not.
let keyringProbe = KeyringProbe.run()

/// The condition trait for tests that need the kernel keyring.
var needsKeyring: ConditionTrait {
    .enabled("the kernel keyring is not available here: \(keyringProbe.reason)") {
        if !keyringProbe.isAvailable {
            FileHandle.standardError.write(Data("WARNING: kernel keyring tests skipped: \(keyringProbe.reason)\n".utf8))
        }
        return keyringProbe.isAvailable
    }
}

/// Whether a Secret Service answers here (`make test` starts a private GNOME Keyring
/// through Scripts/with-secret-service.sh).
let secretServiceProbe = SecretServiceProbe.run()

/// Whether Secret Service tests can run. Without a service they are skipped with a
/// warning, except under `CI=true`, where CI must prove the backend: there they fail.
func secretServiceIsRunnable() -> Bool {
    if secretServiceProbe.isAvailable { return true }
    let why = "no Secret Service answers here (\(secretServiceProbe.reason)); run the tests under Scripts/with-secret-service.sh, as make test does"
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        Issue.record("CI=true and \(why)")
    } else {
        FileHandle.standardError.write(Data("WARNING: Secret Service tests skipped: \(why)\n".utf8))
    }
    return false
}

/// The condition trait for tests that need a Secret Service: disabled with a warning
/// outside CI; under `CI=true` the test runs and fails on its first call.
var needsSecretService: ConditionTrait {
    .enabled("no Secret Service answers here: \(secretServiceProbe.reason)") {
        if secretServiceProbe.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return secretServiceIsRunnable()
    }
}

/// File mode bits of `path`.
func mode(of path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    chmod(path, 0o600)
}

/// Runs `body` and returns the `SecretStoreError` it threw, or `nil`.
func secretStoreError(_ body: () async throws -> Void) async -> SecretStoreError? {
    do {
        try await body()
        return nil
    } catch let error as SecretStoreError {
        return error
    } catch {
        Issue.record("expected a SecretStoreError, got \(error)")
        return nil
    }
}

/// Re-runs this test binary as a helper process performing `mode` (see
/// `ChildProcessEntry`), with `environment` added.
struct ChildProcess {
    static let executable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()

    static func make(mode: String, environment: [String: String], prefix: [String] = []) -> Process {
        let process = Process()
        var env = ProcessInfo.processInfo.environment
        env["LATCHKEY_SECRETS_CHILD"] = mode
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let arguments = ["--testing-library", "swift-testing", "--filter", "ChildProcessEntry"]
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [executable] + arguments
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// Runs a helper to completion; returns its exit status.
    static func run(mode: String, environment: [String: String], prefix: [String] = []) async throws -> Int32 {
        let process = make(mode: mode, environment: environment, prefix: prefix)
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        return process.terminationStatus
    }
}

/// The PostgreSQL store's databases for the shared store tests: the private server
/// `make test` starts (Scripts/with-postgres.sh), one pool per key directory.
enum PostgresTestDatabases {
    static let url = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"]
    private static let databases = Mutex<[String: PostgresSecretDatabase]>([:])

    /// Whether PostgreSQL tests can run: skipped with a warning without a server,
    /// except under `CI=true`, where they fail.
    static func isRunnable() -> Bool {
        if url != nil { return true }
        let why = "LATCHKEY_TEST_POSTGRES_URL is not set; run the tests under Scripts/with-postgres.sh, as make test does"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("CI=true and \(why)")
        } else {
            FileHandle.standardError.write(Data("WARNING: PostgreSQL store tests skipped: \(why)\n".utf8))
        }
        return false
    }

    /// The database whose sealing key lives in `directory`'s key file.
    static func database(keysIn directory: TemporaryDirectory) throws -> PostgresSecretDatabase {
        try databases.withLock { databases in
            if let database = databases[directory.path] { return database }
            var options = PostgresSecretDatabase.Options()
            options.keyConfiguration = directory.configuration()
            options.maximumConnections = 4
            let database = try PostgresSecretDatabase(url: url ?? "", options: options)
            databases[directory.path] = database
            return database
        }
    }
}
