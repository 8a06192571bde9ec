import Foundation
import Latchkey
import LatchkeySecrets
import Logging
import Synchronization
import Testing

/// Everything a client test needs: a manual clock, the scripted provider, a store, the
/// app API and captured logs.
struct Harness {
    let clock: ManualClock
    let provider: ScriptedProvider
    let store: any SecretStore
    let api: AppAPITransport
    let logs: LogCapture
    let client: AuthClient

    init(store: (any SecretStore)? = nil, extendsSessions: Bool = false, lifetime: TimeInterval = 3600,
         options: SessionOptions = SessionOptions(), clock: ManualClock = ManualClock()) throws {
        self.clock = clock
        provider = ScriptedProvider(extendsSessions: extendsSessions, lifetime: lifetime, clock: clock)
        self.store = try store ?? MemorySecretStore(namespace: "test")
        api = AppAPITransport(provider: provider)
        logs = LogCapture()
        client = AuthClient(provider: provider, store: self.store, options: options, transport: api, clock: clock, logger: logs.logger)
        guard let ledger = SecretLedger.current else {
            Issue.record("a Harness outside a suite marked .noSecretLeaks: its logs and errors would go unchecked for secrets")
            return
        }
        ledger.watch(logs)
        ledger.watch(client)
    }

    /// A second client on the same store and provider, as after a restart.
    func restarted(options: SessionOptions = SessionOptions()) -> AuthClient {
        let client = AuthClient(provider: provider, store: store, options: options, transport: api, clock: clock, logger: logs.logger)
        SecretLedger.current?.watch(client)
        return client
    }

    func login() async throws {
        try await client.start()
        try await client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
    }

    /// The vault record's bytes read as text (tokens are stored as plain UTF-8 in it), or nil.
    func storedRecord() async throws -> String? {
        try await store.string(SessionOptions().vaultEntryName)
    }
}

/// Collects every log line (message and metadata) in memory.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            capture.append("\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }
}

/// Waits, yielding, until `condition` holds; fails the test after many rounds. Used
/// only to let background tasks that were already woken finish their step, never to
/// wait for time to pass (time is the manual clock's).
func settle(_ what: Comment, _ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    for round in 0..<200_000 {
        if await condition() { return }
        if round % 64 == 63 { try? await Task.sleep(for: .microseconds(50)) } else { await Task.yield() }
    }
    Issue.record("never settled: \(what)", sourceLocation: sourceLocation)
}

/// Runs `body` and returns the AuthError it threw, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        SecretLedger.current?.inspect(error: error, "a caught AuthError")
        return error
    } catch {
        Issue.record("expected an AuthError, got \(error)")
        return nil
    }
}
