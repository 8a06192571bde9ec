public import LatchkeySecrets
public import Logging
internal import PostgresNIO
internal import Synchronization

/// One PostgreSQL database holding sealed secrets, shared by the stores of every
/// namespace an instance opens: a pool of connections (postgres-nio's
/// `PostgresClient`), run in a task of its own until ``shutdown()``.
///
/// Create one per process and database, make stores with ``store(namespace:)``, and
/// call ``shutdown()`` when done. The table is created by ``migrate()`` or, unless
/// ``Options/createsSchema`` is off, on first use. Descriptions and errors never show
/// the password.
public final class PostgresSecretDatabase: Sendable {
    /// How the database is reached and how long anything may wait.
    public struct Options: Sendable {
        /// Create the table on first use (needs the CREATE privilege on the schema);
        /// turn off when a migration role created it and the app's role may only use it.
        public var createsSchema = true
        /// The longest any one read or write waits for a connection and an answer (10 s).
        public var operationTimeout: Duration = .seconds(10)
        /// The longest ``PostgresSecretStore/withExclusiveLock(_:)`` waits for another
        /// instance to let go of the namespace's lock (30 s).
        public var lockTimeout: Duration = .seconds(30)
        /// How long a renewal lease lasts without its holder (30 s): a live holder extends
        /// it every third of this while its body runs, so an instance killed (or cut off)
        /// in a renewal blocks that namespace's renewals for at most this long. At least
        /// 3 s. See ``PostgresSecretStore``.
        public var leaseDuration: Duration = .seconds(30) {
            didSet { leaseDuration = max(leaseDuration, .seconds(3)) }
        }
        /// Connections in the pool at most (a lock holds one for its duration).
        public var maximumConnections = 10
        /// Where the store's sealing key comes from: a key file, the same on every
        /// instance (`configuration.keySource`, default `secrets.key` under
        /// `$XDG_CONFIG_HOME/latchkey/`). A passphrase source is refused.
        public var keyConfiguration = SecretStoreConfiguration()
        /// Gets the store's own messages (never a value, a key or the password).
        public var logger = Logger(label: "latchkey.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

        /// The defaults.
        public init() {}
    }

    /// The address as given, with the password removed: safe to print.
    public let redactedAddress: String
    let options: Options
    let address: PostgresAddress
    let client: PostgresClient
    let keys: FileKeyMaterial
    let label: String
    /// This object's name as a lease holder: one per process and database.
    let holderID = (0..<16).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
    private let runner: Mutex<Task<Void, Never>?>
    private let schemaReady = Mutex(false)
    /// Serializes this process's lock takers per namespace, before the database lock.
    private let localLocks = Mutex<[String: AsyncExclusiveLock]>([:])

    /// A database reached at `address` (see ``PostgresAddress``); starts the pool.
    /// Connects lazily: nothing is sent until the first operation.
    public init(address: PostgresAddress, options: Options = Options()) {
        self.redactedAddress = address.redacted
        self.address = address
        self.options = options
        self.label = "PostgreSQL store (\(address.redacted))"
        self.keys = FileKeyMaterial(configuration: options.keyConfiguration)
        var configuration = address.clientConfiguration()
        configuration.options.maximumConnections = max(2, options.maximumConnections)
        configuration.options.connectTimeout = options.operationTimeout
        let client = PostgresClient(configuration: configuration, backgroundLogger: options.logger)
        self.client = client
        self.runner = Mutex(Task { await client.run() })
    }

    /// A database reached through a `postgres://` URL (see ``PostgresAddress/init(url:)``).
    ///
    /// - Throws: `.unavailable` when the URL does not parse (the message omits the password).
    public convenience init(url: String, options: Options = Options()) throws {
        self.init(address: try PostgresAddress(url: url), options: options)
    }

    deinit { runner.withLock { $0?.cancel() } }

    /// Closes every connection; stores made from this database fail afterwards.
    public func shutdown() {
        runner.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// The store of `namespace` in this database.
    ///
    /// - Throws: `.invalidName` for a namespace the other stores refuse too.
    public func store(namespace: String) throws -> PostgresSecretStore {
        try PostgresSecretStore(namespace: namespace, database: self)
    }

    /// Creates the tables (the secrets and the renewal leases) if missing. Safe to run
    /// from several instances at once.
    ///
    /// - Throws: ``SecretStoreError`` (`.permissionDenied` when the role may not create it).
    public func migrate() async throws {
        let logger = options.logger
        try await onPool("create the tables", entry: nil) { connection in
            for statement in [PostgresSchema.createTable, PostgresSchema.createLeases] {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                } catch let error as PSQLError where ["23505", "42P07", "42710"].contains(error.serverInfo?[.sqlState] ?? "") {
                    // Two instances raced to create it (a duplicate row type, relation or
                    // catalog key): the other one won, which is as good. The next table still
                    // has to be made.
                }
            }
        }
        schemaReady.withLock { $0 = true }
    }

    /// Runs `migrate()` once when the options ask for the schema on demand.
    func ensureSchema() async throws {
        guard options.createsSchema, !schemaReady.withLock({ $0 }) else { return }
        try await migrate()
    }

    func localLock(_ namespace: String) -> AsyncExclusiveLock {
        localLocks.withLock { locks in
            if let lock = locks[namespace] { return lock }
            let lock = AsyncExclusiveLock()
            locks[namespace] = lock
            return lock
        }
    }

    /// Runs `operation` on a connection of the pool, within ``Options/operationTimeout``.
    ///
    /// The pool may hand out a connection a fault just ended (every connection dropped at
    /// once), and a query written to one is never answered: the attempt ends when its
    /// connection is closed (``PostgresConnection/unlessClosed(_:)``), and an attempt that
    /// failed fast is tried again on another connection, twice, so that a rotated token's
    /// save does not wait for the next use. One that timed out is not tried again. Every
    /// statement this store sends may be repeated: upserts, deletes and reads.
    func onPool<R: Sendable>(
        _ what: String, entry: String?, namespace: String? = nil,
        _ operation: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        let (client, label) = (self.client, self.label)
        var pauses: [Duration] = [.milliseconds(50), .milliseconds(250)]
        while true {
            let started = ContinuousClock.now
            do {
                return try await bounded(what, entry: entry) {
                    try await client.withConnection { connection in
                        switch await connection.unlessClosed({ try await operation(connection) }) {
                        case .answered(let result): return try result.get()
                        case .connectionClosed:
                            throw SecretStoreError(
                                .unavailable, store: label, entry: entry,
                                reason: "the connection ended while trying to \(what); whether it took effect is unknown")
                        }
                    }
                }
            } catch {
                options.logger.debug(
                    "a query on a pool connection failed",
                    metadata: PostgresDebugMetadata.attempt(namespace: namespace, query: what, since: started, error: error)
                )
                guard let failure = error as? SecretStoreError, failure.code == .unavailable, !pauses.isEmpty,
                    ContinuousClock.now - started < .seconds(1)
                else { throw error }
                try? await Task.sleep(for: pauses.removeFirst())
            }
        }
    }

    /// Runs `operation` for at most ``Options/operationTimeout`` (or `timeout`) and maps
    /// its failure. At the deadline the caller gets `.unavailable` at once and the
    /// operation is cancelled and left to end on its own: a query on a connection whose
    /// server stopped answering may not notice cancellation until TCP gives up.
    func bounded<R: Sendable>(
        _ what: String, entry: String? = nil, timeout: Duration? = nil,
        _ operation: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        let limit = timeout ?? options.operationTimeout
        let label = self.label
        let race = Race<R>()
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                race.start(continuation, limit: limit, operation: operation) {
                    SecretStoreError(
                        .unavailable, store: label, entry: entry,
                        reason: "the database did not answer within \(limit) while trying to \(what); whether it took effect is unknown")
                }
            }
        } catch let error as SecretStoreError {
            throw error
        } catch {
            throw PostgresErrors.map(error, store: label, entry: entry, doing: what)
        }
    }
}

/// An operation against a deadline: whichever ends first resumes the caller, once.
private final class Race<R: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<R, any Error>?
        var timer: Task<Void, Never>?
        var work: Task<Void, Never>?
    }

    private let state = Mutex(State())

    private func take() -> State {
        state.withLock { state in
            defer { state = State() }
            return state
        }
    }

    func start(
        _ continuation: CheckedContinuation<R, any Error>, limit: Duration,
        operation: @escaping @Sendable () async throws -> R, timedOut: @escaping @Sendable () -> any Error
    ) {
        state.withLock { $0.continuation = continuation }
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled else { return }
            let taken = self.take()
            taken.work?.cancel()
            taken.continuation?.resume(throwing: timedOut())
        }
        let work = Task {
            let result: Result<R, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            let taken = self.take()
            taken.timer?.cancel()
            taken.continuation?.resume(with: result)
        }
        let ended = state.withLock { state -> Bool in
            // Either may have ended already (and taken the state): then nothing to keep.
            guard state.continuation != nil else { return true }
            state.timer = timer
            state.work = work
            return false
        }
        if ended { timer.cancel() }
    }
}
