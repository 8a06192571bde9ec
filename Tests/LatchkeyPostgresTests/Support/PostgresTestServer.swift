import Foundation
import Glibc
import LatchkeySecrets
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import LatchkeyPostgres

/// Every PostgreSQL test, one at a time: some restart the server or kill connections,
/// which would fail whatever else ran on it meanwhile.
@Suite(.serialized) struct PostgresTests {}

/// The private server `make test` starts (Scripts/with-postgres.sh): its URL, a restart,
/// and raw SQL for what a test does behind the store's back.
struct PostgresTestServer: Sendable {
    let url: String
    let address: PostgresAddress
    let restartScript: String?
    let dataDirectory: String?

    /// The server, or `nil` (tests return) when none was started: a warning, except
    /// under `CI=true`, where it fails the test.
    static func current(sourceLocation: SourceLocation = #_sourceLocation) -> PostgresTestServer? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["LATCHKEY_TEST_POSTGRES_URL"], let address = try? PostgresAddress(url: url) else {
            let why = "LATCHKEY_TEST_POSTGRES_URL is not set; run the tests under Scripts/with-postgres.sh, as make test does"
            if environment["CI"] == "true" {
                Issue.record("CI=true and \(why)", sourceLocation: sourceLocation)
            } else {
                FileHandle.standardError.write(Data("WARNING: PostgreSQL tests skipped: \(why)\n".utf8))
            }
            return nil
        }
        return PostgresTestServer(
            url: url, address: address, restartScript: environment["LATCHKEY_TEST_POSTGRES_RESTART"],
            dataDirectory: environment["LATCHKEY_TEST_POSTGRES_DATA"])
    }

    /// Runs `sql` on a connection of its own and returns the first column of each row
    /// as text.
    func sql(_ sql: String) async throws -> [String?] {
        let connection = try await PostgresConnection.connect(
            configuration: address.connectionConfiguration(connectTimeout: .seconds(30)),
            id: 99, logger: Logger(label: "test"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test")).collect()
        return rows.map { row in try? row.decode(String?.self) }.map { $0 ?? nil }
    }

    /// Restarts the server (fast shutdown: every connection is dropped).
    ///
    /// Spawned and reaped by hand: Foundation's `Process` reports a child running while
    /// any descendant holds the descriptor it watches, and the restarted server does.
    func restart() async throws {
        let script = try #require(restartScript, "LATCHKEY_TEST_POSTGRES_RESTART is not set")
        var pid: pid_t = 0
        let path = strdup(script)
        defer { free(path) }
        var argv: [UnsafeMutablePointer<CChar>?] = [path, nil]
        #expect(posix_spawn(&pid, script, nil, nil, &argv, environ) == 0, "the restart script started")
        var status: Int32 = 0
        let ended = await poll(timeout: .seconds(180)) { waitpid(pid, &status, WNOHANG) == pid }
        #expect(ended, "the restart finished")
        #expect(ended && (status >> 8) & 0xFF == 0 && status & 0x7F == 0, "the server restarted (status \(status))")
    }
}

/// A key file in a temporary directory, as every instance of a fleet would share.
final class KeyDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/latchkey-postgres-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var configuration: SecretStoreConfiguration {
        SecretStoreConfiguration(dataDirectory: path + "/data", configDirectory: path + "/config")
    }

    /// A database (a pool of its own: as another instance) sealing with this key.
    func database(
        _ server: PostgresTestServer, lockTimeout: Duration = .seconds(60),
        operationTimeout: Duration = .seconds(30), leaseDuration: Duration = .seconds(60)
    ) throws -> PostgresSecretDatabase {
        var options = PostgresSecretDatabase.Options()
        options.leaseDuration = leaseDuration
        options.keyConfiguration = configuration
        options.lockTimeout = lockTimeout
        options.operationTimeout = operationTimeout
        options.maximumConnections = 4
        return try PostgresSecretDatabase(url: server.url, options: options)
    }
}

/// A namespace no other test (or earlier run) uses.
func uniqueNamespace(_ label: String) -> String {
    "latchkey-pg-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
}

/// The store error `body` throws, or `nil` (recorded) when it throws none or another.
func storeError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> SecretStoreError? {
    do {
        try await body()
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
    } catch let error as SecretStoreError {
        return error
    } catch {
        Issue.record("not a SecretStoreError: \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Polls `condition` (real time) until it holds; `false` after `timeout`.
func poll(timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return await condition()
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
