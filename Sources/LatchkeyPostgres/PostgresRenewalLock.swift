internal import LatchkeySecrets
internal import Logging
internal import PostgresNIO

/// The advisory lock a body holds, as the store's reads and writes inside the body see it.
struct HeldLock: Sendable {
    let key: Int64
    let database: PostgresSecretDatabase
    /// The dedicated connection the lock lives on; closing it releases the lock.
    let connection: PostgresConnection

    /// A SQL condition true only on the connection that holds the lock: a bigint
    /// advisory key shows in `pg_locks` as its high half (`classid`) and low half
    /// (`objid`), with `objsubid` 1. Built from our own integers only.
    var stillHeldCondition: String {
        let bits = UInt64(bitPattern: key)
        return "EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted"
            + " AND classid = \(bits >> 32) AND objid = \(bits & 0xFFFF_FFFF) AND objsubid = 1)"
    }

    /// A query written to a connection that already closed is never answered
    /// (postgres-nio drops the write's failure), so every use of the lock's connection
    /// checks first; a close that lands mid-query still ends at the operation timeout.
    func ensureOpen(store: String, entry: String?) throws {
        guard connection.isClosed else { return }
        throw SecretStoreError(
            .unavailable, store: store, entry: entry,
            reason: "the namespace's lock was lost (its database connection ended); nothing was read or written under it")
    }

    /// Whether the connection is alive and still holds the lock; `false` on any error.
    func isHeld() async -> Bool {
        guard !connection.isClosed else { return false }
        let query = PostgresQuery(unsafeSQL: "SELECT \(stillHeldCondition)")
        do {
            let rows = try await database.bounded("check the lock") {
                try await connection.query(query, logger: database.options.logger).collect()
            }
            return try rows.first?.decode(Bool.self) ?? false
        } catch {
            return false
        }
    }
}

/// Takes a namespace's advisory lock on a connection of its own, runs a body under it,
/// and lets go: `pg_advisory_unlock`, then the connection is closed (which would
/// release it anyway).
struct PostgresRenewalLock {
    let store: PostgresSecretStore

    private var database: PostgresSecretDatabase { store.database }

    func run<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        let connection = try await connect()
        let held = HeldLock(key: store.lockKey, database: database, connection: connection)
        do {
            try await acquire(held)
        } catch {
            try? await connection.close()
            throw error
        }
        let outcome: Result<R, any Error>
        do {
            outcome = .success(try await PostgresSecretStore.$heldLock.withValue(held) { try await body() })
        } catch {
            outcome = .failure(error)
        }
        let released = await release(held)
        let result = try outcome.get()
        guard released else {
            throw SecretStoreError(
                .unavailable, store: store.storeLabel,
                reason: "the namespace's lock was lost while its holder ran (the database connection ended); the result was discarded")
        }
        return result
    }

    private func connect() async throws -> PostgresConnection {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try database.address.connectionConfiguration(connectTimeout: database.options.operationTimeout)
        } catch {
            throw SecretStoreError(.unavailable, store: store.storeLabel, reason: "the TLS settings for the database are not usable")
        }
        let logger = database.options.logger
        return try await database.bounded("connect for the lock") {
            try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        }
    }

    /// Tries the lock until it is free, backing off from 2 ms to 100 ms, for at most
    /// the lock timeout. A try never blocks, so a waiter holds no server lock queue
    /// entry and a lost waiter leaves nothing behind.
    private func acquire(_ held: HeldLock) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + database.options.lockTimeout
        var pause = Duration.milliseconds(2)
        let query: PostgresQuery = "SELECT pg_try_advisory_lock(\(held.key))"
        while true {
            try held.ensureOpen(store: store.storeLabel, entry: nil)
            let rows = try await database.bounded("take the namespace's lock") {
                try await held.connection.query(query, logger: database.options.logger).collect()
            }
            if (try? rows.first?.decode(Bool.self)) == true { return }
            guard clock.now < deadline else {
                throw SecretStoreError(
                    .unavailable, store: store.storeLabel,
                    reason: "another instance held the namespace's lock for over \(database.options.lockTimeout); gave up waiting")
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// Unlocks and closes; `true` when the lock was still held up to the unlock.
    private func release(_ held: HeldLock) async -> Bool {
        guard !held.connection.isClosed else { return false }
        let query: PostgresQuery = "SELECT pg_advisory_unlock(\(held.key))"
        let released: Bool
        do {
            let rows = try await database.bounded("release the namespace's lock") {
                try await held.connection.query(query, logger: database.options.logger).collect()
            }
            released = try rows.first?.decode(Bool.self) ?? false
        } catch {
            released = false
        }
        try? await held.connection.close()
        return released
    }
}
