internal import LatchkeyCrypto
public import LatchkeySecrets
internal import PostgresNIO

/// Secrets of one namespace in a PostgreSQL table, sealed with AES-256-GCM before they
/// leave the process, and a lock on the namespace that every instance on the same
/// database honours: the store for a fleet of servers sharing their users' sessions.
///
/// Make it with ``PostgresSecretDatabase/store(namespace:)``. Each row holds one entry:
/// the database sees the namespace and the names, never a value (see ``SealedValue``
/// for the layout; the key is the key file's, which every instance must share).
///
/// ``withExclusiveLock(_:)`` takes the namespace's lock in this process, then a
/// session-level advisory lock (`pg_try_advisory_lock`, keyed by a 64-bit hash of the
/// namespace) on a connection of its own, then the namespace's **renewal lease**: a row
/// in `latchkey_leases` naming this instance until `now() + leaseDuration`. Inside the
/// body, every write on this namespace commits only while that lease is still this
/// instance's and live. The lease outlives the advisory lock's connection: when that
/// connection drops while a refresh is at the provider, the next instance waits for the
/// lease, and the body's reads and writes go on through the pool. A write that fails
/// keeps the lease until it runs out (its holder may owe the store a rotated token); an
/// instance killed mid-body leaves its lease to run out. Not covered: a body that runs
/// longer than the lease (its writes are then refused), and an instance killed after
/// the provider answered and before the save.
public final class PostgresSecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "PostgreSQL".
    public let backendName = "PostgreSQL"
    /// The database the store lives in.
    public let database: PostgresSecretDatabase
    /// The advisory lock key: the first 8 bytes of SHA-256 over a label and the namespace.
    public let lockKey: Int64

    let storeLabel: String

    /// The lock connection of the body running under this store's lock, if any.
    @TaskLocal static var heldLock: HeldLock?

    init(namespace: String, database: PostgresSecretDatabase) throws {
        let label = "PostgreSQL store \"\(namespace)\" (\(database.redactedAddress))"
        try SecretNames.validateNamespace(namespace, store: label)
        self.namespace = namespace
        self.database = database
        self.storeLabel = label
        let digest = HashAlgorithm.sha256.hash(Array("latchkey renewal lock v1\u{0}".utf8) + Array(namespace.utf8))
        self.lockKey = digest.prefix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }

    // MARK: SecretStore

    /// Returns the value of `name`, or `nil`; one query, then one AES-GCM open.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let namespace = self.namespace
        let rows = try await run("read the entry", entry: name) { connection in
            try await connection.query(
                "SELECT sealed FROM latchkey_secrets WHERE namespace = \(namespace) AND name = \(name)",
                logger: self.database.options.logger
            ).collect()
        }
        guard let row = rows.first else { return nil }
        let sealed = try decode(row, as: ByteBuffer.self, entry: name)
        return try open(Array(sealed.readableBytesView), name: name)
    }

    /// Stores `value` under `name` (an upsert of one sealed row).
    ///
    /// - Throws: `.valueTooLarge` over 64 MiB; `.unavailable` if called under the lock
    ///   and the lease ran out or passed to another instance (nothing written).
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard value.count <= EncryptedFileSecretStore.maxFileBytes else {
            throw SecretStoreError(
                .valueTooLarge, store: storeLabel, entry: name,
                reason: "the value is \(value.count) bytes, over the \(EncryptedFileSecretStore.maxFileBytes)-byte limit; it was not stored")
        }
        // A ByteBuffer binds as bytea; a [UInt8] would bind as an array of "char".
        let sealed = ByteBuffer(bytes: try SealedValue.seal(value, key: try key(), namespace: namespace, name: name))
        let namespace = self.namespace
        try await write("write the entry", entry: name) { held in
            if let held {
                return """
                    INSERT INTO latchkey_secrets (namespace, name, sealed) SELECT \(namespace), \(name), \(sealed)
                    WHERE \(leaseHeldBy: held)
                    ON CONFLICT (namespace, name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()
                    RETURNING 1
                    """
            }
            return """
                INSERT INTO latchkey_secrets (namespace, name, sealed) VALUES (\(namespace), \(name), \(sealed))
                ON CONFLICT (namespace, name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()
                RETURNING 1
                """
        }
    }

    /// Removes `name`; returns whether it was there.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let namespace = self.namespace
        return try await write("remove the entry", entry: name, requireRow: false) { held in
            guard let held else { return "DELETE FROM latchkey_secrets WHERE namespace = \(namespace) AND name = \(name) RETURNING 1" }
            return """
                DELETE FROM latchkey_secrets WHERE namespace = \(namespace) AND name = \(name) AND \(leaseHeldBy: held)
                RETURNING 1
                """
        } > 0
    }

    /// Removes every entry of the namespace.
    public nonisolated(nonsending) func removeAll() async throws {
        let namespace = self.namespace
        _ = try await write("remove every entry", entry: nil, requireRow: false) { held in
            guard let held else { return "DELETE FROM latchkey_secrets WHERE namespace = \(namespace) RETURNING 1" }
            return """
                DELETE FROM latchkey_secrets WHERE namespace = \(namespace) AND \(leaseHeldBy: held)
                RETURNING 1
                """
        }
    }

    /// The names of all entries, sorted by their UTF-8 bytes; decrypts nothing.
    public nonisolated(nonsending) func names() async throws -> [String] {
        let namespace = self.namespace
        let rows = try await run("list the entries", entry: nil) { connection in
            try await connection.query(
                "SELECT name FROM latchkey_secrets WHERE namespace = \(namespace)",
                logger: self.database.options.logger
            ).collect()
        }
        return try rows.map { try decode($0, as: String.self, entry: nil) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Runs `body` holding the namespace's lock across every instance on this database
    /// (see the type's documentation for exactly what that guarantees).
    ///
    /// Re-entrant within the body's task tree. Waits at most
    /// ``PostgresSecretDatabase/Options/lockTimeout`` for another instance (its lock and
    /// its lease), then throws `.unavailable`. The body's result is returned even when the
    /// lock's connection ended while it ran: each of its writes was checked against the lease.
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        if let held = Self.heldLock, held.key == lockKey, held.database === database { return try await body() }
        try await database.ensureSchema()
        let local = database.localLock(namespace)
        await local.lock()
        defer { local.unlock() }
        return try await PostgresRenewalLock(store: self).run(body)
    }

    // MARK: Helpers

    private func key() throws -> FileKeyMaterial.Key {
        try database.keys.keyFileKey(store: storeLabel)
    }

    private func open(_ sealed: [UInt8], name: String) throws -> [UInt8] {
        let key = try key()
        do throws(SealedValue.Problem) {
            return try SealedValue.open(sealed, key: key, namespace: namespace, name: name)
        } catch {
            switch error {
            case .wrongKey:
                throw SecretStoreError(
                    .wrongKey, store: storeLabel, entry: name,
                    reason: "the entry was sealed under another key; every instance must use the same key file")
            case .corrupted(let reason):
                throw SecretStoreError(.corrupted, store: storeLabel, entry: name, reason: reason)
            }
        }
    }

    private func decode<T: PostgresDecodable>(_ row: PostgresRow, as type: T.Type, entry: String?) throws -> T {
        do {
            return try row.decode(T.self)
        } catch {
            throw SecretStoreError(.corrupted, store: storeLabel, entry: entry, reason: "a row of the table has an unexpected column type")
        }
    }

    /// Runs a read: on the lock's connection inside a locked body, else on a leased one.
    private func run<R: Sendable>(
        _ what: String, entry: String?,
        _ operation: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        if let held = Self.heldLock, held.key == lockKey, held.database === database {
            return try await held.perform(what, entry: entry, operation)
        }
        try await database.ensureSchema()
        return try await database.onPool(what, entry: entry, namespace: namespace, operation)
    }

    /// Runs a write made by `query` (which returns a row per row changed) and returns
    /// the count. Under the lock, the query carries the lock check: no row back for an
    /// upsert means the lock is gone.
    @discardableResult
    private func write(
        _ what: String, entry: String?, requireRow: Bool = true,
        _ query: @escaping @Sendable (HeldLock?) -> PostgresQuery
    ) async throws -> Int {
        let held = Self.heldLock.flatMap { $0.key == lockKey && $0.database === database ? $0 : nil }
        let statement = query(held)
        let rows: [PostgresRow]
        do {
            rows = try await run(what, entry: entry) { connection in
                try await connection.query(statement, logger: self.database.options.logger).collect()
            }
        } catch {
            // Under the lock, a failed write may be a rotated token the holder still owes
            // the store: the lease is kept until it runs out (`LeaseWrites`).
            held?.writes.noteFailure()
            throw error
        }
        guard let held, rows.isEmpty else { return rows.count }
        let leaseHeld = requireRow ? false : await held.isLeaseHeld()
        if !leaseHeld {
            held.writes.noteFailure()
            throw SecretStoreError(
                .unavailable, store: storeLabel, entry: entry,
                reason: "the namespace's renewal lease ran out or passed to another instance before the write; nothing was written")
        }
        return 0
    }
}
