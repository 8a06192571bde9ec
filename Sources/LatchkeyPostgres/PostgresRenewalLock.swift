internal import LatchkeySecrets
internal import Logging
internal import PostgresNIO
internal import Synchronization

/// The lock a body holds, as the store's reads and writes inside the body see it: the
/// advisory lock on a connection of its own, and the namespace's lease, a row that
/// outlives that connection.
struct HeldLock: Sendable {
    let key: Int64
    let database: PostgresSecretDatabase
    /// The dedicated connection the advisory lock lives on; closing it releases that lock
    /// (not the lease).
    let connection: PostgresConnection
    let namespace: String
    /// This database object's identity in `latchkey_leases.holder`.
    let holder: String
    let writes: LeaseWrites

    /// Whether the lease is still this holder's and live, as a query of its own.
    func leaseStillMine() -> PostgresQuery {
        "SELECT \(leaseHeldBy: self)"
    }

    /// Whether the lease is still this holder's and live; `false` on any error.
    func isLeaseHeld() async -> Bool {
        let query = leaseStillMine()
        let logger = database.options.logger
        do {
            let rows = try await perform("check the lease", entry: nil) { try await $0.query(query, logger: logger).collect() }
            return try rows.first?.decode(Bool.self) ?? false
        } catch {
            return false
        }
    }

    /// Runs `operation` on the lock's connection — or, once that connection has ended
    /// (dropped, killed, the server restarted), on one of the pool's: the lease, not the
    /// connection, is what the body's writes check, so they repeat there safely.
    func perform<R: Sendable>(
        _ what: String, entry: String?, _ operation: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        if !connection.isClosed {
            let started = ContinuousClock.now
            switch await onLockConnection(what, entry: entry, operation) {
            case .answered(let result):
                do { return try result.get() } catch let error as SecretStoreError
                    where error.code == .unavailable && ContinuousClock.now - started < .seconds(1)
                {
                    // The connection ended under the query (the server's 57P01 may arrive
                    // before the close): once more through the pool.
                }
            case .connectionClosed:
                // A query written as the connection closed is never answered: not waited for.
                break
            }
            database.options.logger.debug(
                "the namespace's lock connection ended under a query; through the pool",
                metadata: PostgresDebugMetadata.attempt(namespace: namespace, query: what, since: started))
        }
        return try await database.onPool(what, entry: entry, namespace: namespace, operation)
    }
}

extension HeldLock {
    /// Runs `operation` on the lock's connection, or gives up on it as soon as that
    /// connection closes (the query is left to end on its own).
    fileprivate func onLockConnection<R: Sendable>(
        _ what: String, entry: String?, _ operation: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async -> ConnectionOutcome<R> {
        let (database, connection) = (self.database, self.connection)
        return await connection.unlessClosed { try await database.bounded(what, entry: entry) { try await operation(connection) } }
    }
}

/// Whether a write under the lock failed: the holder may owe the store a rotated refresh
/// token (its save will be retried), so the lease is left to run out instead of being
/// given back, and no other instance reads the older token meanwhile.
final class LeaseWrites: Sendable {
    private let failed = Atomic(false)

    func noteFailure() { failed.store(true, ordering: .relaxed) }
    var anyFailed: Bool { failed.load(ordering: .relaxed) }
}

/// Takes a namespace's lock, runs a body under it, and lets go.
///
/// Two parts. First the advisory lock (`pg_try_advisory_lock`) on a connection of its
/// own, which orders the instances' attempts. Then, under it, the namespace's **lease**:
/// a row in `latchkey_leases` naming this holder until `now() + leaseDuration` (the
/// database's clock), taken only when no other holder's lease is live. The lease is what
/// the body's writes check, and it outlives the advisory lock's connection: when that
/// connection drops while a refresh is at the provider, the server frees the advisory
/// lock, but the next instance finds the lease and waits, and the holder saves the
/// rotated token through the pool. A holder killed mid-body leaves its lease to run out.
struct PostgresRenewalLock {
    let store: PostgresSecretStore

    private var database: PostgresSecretDatabase { store.database }

    /// ``PostgresSecretDatabase/Options/leaseDuration`` in seconds, as the lease's SQL takes it.
    private var leaseSeconds: Double { Double(database.options.leaseDuration.components.seconds) }

    func run<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        let logger = database.options.logger
        let started = ContinuousClock.now
        let connection: PostgresConnection
        do { connection = try await connect() } catch {
            logger.debug("no connection for the namespace's lock", metadata: lockMetadata(since: started, error: error))
            throw error
        }
        let held = HeldLock(
            key: store.lockKey, database: database, connection: connection, namespace: store.namespace,
            holder: database.holderID, writes: LeaseWrites())
        do {
            let deadline = ContinuousClock.now + database.options.lockTimeout
            try await acquire(held, until: deadline)
            try await takeLease(held, until: deadline)
        } catch {
            logger.debug("the namespace's lock was not taken", metadata: lockMetadata(since: started, error: error))
            try? await connection.close()
            throw error
        }
        logger.debug("took the namespace's lock and lease", metadata: lockMetadata(since: started))
        // A live holder keeps its lease however long its body takes (a slow provider, a
        // database restart); only a holder that stopped (killed, cut off) lets it run out.
        let keeper = Task { await keepLease(held) }
        let outcome: Result<R, any Error>
        do {
            outcome = .success(try await PostgresSecretStore.$heldLock.withValue(held) { try await body() })
        } catch {
            outcome = .failure(error)
        }
        keeper.cancel()
        // Every write of the body was conditional on the lease: its result stands,
        // whatever became of the advisory lock's connection meanwhile. A result holding a
        // rotated refresh token must reach the caller even when the save failed.
        await release(held)
        logger.debug(
            held.writes.anyFailed ? "let the namespace's lock go, its lease left to run out (a write failed)" : "let the namespace's lock go",
            metadata: lockMetadata(since: started))
        return try outcome.get()
    }

    /// What the debug messages of a lock say (``PostgresDebugMetadata``).
    private func lockMetadata(since started: ContinuousClock.Instant, error: (any Error)? = nil) -> Logger.Metadata {
        PostgresDebugMetadata.attempt(namespace: store.namespace, since: started, error: error)
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

    /// Tries the advisory lock until it is free, backing off from 2 ms to 100 ms, until
    /// `deadline`. A try never blocks, so a waiter holds no server lock queue entry and a
    /// lost waiter leaves nothing behind.
    private func acquire(_ held: HeldLock, until deadline: ContinuousClock.Instant) async throws {
        let query: PostgresQuery = "SELECT pg_try_advisory_lock(\(held.key))"
        try await poll(held, until: deadline, what: "take the namespace's lock", query) {
            "another instance held the namespace's lock for over \(database.options.lockTimeout); gave up waiting"
        }
    }

    /// Takes the lease when it is free, run out, or this holder's own (a body of this
    /// process that ended without giving it back: bodies of one process take turns).
    private func takeLease(_ held: HeldLock, until deadline: ContinuousClock.Instant) async throws {
        let query: PostgresQuery = """
            INSERT INTO latchkey_leases AS lease (namespace, holder, expires_at)
            VALUES (\(held.namespace), \(held.holder), now() + \(leaseSeconds) * interval '1 second')
            ON CONFLICT (namespace) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
            WHERE lease.expires_at <= now() OR lease.holder = EXCLUDED.holder
            RETURNING true
            """
        var pause = TryPause()
        while try await !ask(held, what: "take the namespace's lease", query) {
            // Another instance's live lease. Its holder may need the advisory lock to save a
            // rotated token it owes (a refused save's retry): the lock is let go while this
            // waits, and taken again for the next try.
            await unlock(held)
            guard ContinuousClock.now < deadline else {
                throw SecretStoreError(
                    .unavailable, store: store.storeLabel,
                    reason: "another instance's renewal lease on the namespace did not end within \(database.options.lockTimeout)"
                        + " (a renewal still at the provider, or an instance that stopped in one); gave up waiting")
            }
            await pause.wait()
            try await acquire(held, until: deadline)
        }
    }

    /// Extends the lease to `now() + leaseDuration` every third of it while it is still
    /// this holder's, until cancelled. A failed extension is tried again at the next tick.
    private func keepLease(_ held: HeldLock) async {
        let query: PostgresQuery = """
            UPDATE latchkey_leases SET expires_at = now() + \(leaseSeconds) * interval '1 second'
            WHERE namespace = \(held.namespace) AND \(leaseHeldBy: held)
            """
        let logger = database.options.logger
        while true {
            do { try await Task.sleep(for: database.options.leaseDuration / 3) } catch { return }
            do {
                _ = try await held.perform("extend the lease", entry: nil) { try await $0.query(query, logger: logger).collect() }
            } catch {
                logger.warning("the namespace's lease could not be extended; trying again")
            }
        }
    }

    /// Runs `query` on the lock's connection until it answers `true`.
    private func poll(
        _ held: HeldLock, until deadline: ContinuousClock.Instant, what: String, _ query: PostgresQuery,
        gaveUp: () -> String
    ) async throws {
        var pause = TryPause()
        while try await !ask(held, what: what, query) {
            guard ContinuousClock.now < deadline else { throw SecretStoreError(.unavailable, store: store.storeLabel, reason: gaveUp()) }
            await pause.wait()
        }
    }

    /// Runs `query` once on the lock's connection: whether it answered `true`.
    private func ask(_ held: HeldLock, what: String, _ query: PostgresQuery) async throws -> Bool {
        let closed = SecretStoreError(
            .unavailable, store: store.storeLabel, reason: "the connection for the namespace's lock ended while waiting for it")
        guard !held.connection.isClosed else { throw closed }
        let logger = database.options.logger
        guard case .answered(let answer) = await held.onLockConnection(what, entry: nil, { try await $0.query(query, logger: logger).collect() })
        else { throw closed }
        return try answer.get().first?.decode(Bool.self) ?? false
    }

    /// Lets the advisory lock go (the connection stays, for the next try).
    private func unlock(_ held: HeldLock) async {
        let unlock: PostgresQuery = "SELECT pg_advisory_unlock(\(held.key))"
        let logger = database.options.logger
        _ = await held.onLockConnection("release the namespace's lock", entry: nil) { try await $0.query(unlock, logger: logger).collect() }
    }

    /// Gives the lease back (unless a write failed: then it runs out), unlocks, closes.
    private func release(_ held: HeldLock) async {
        let logger = database.options.logger
        if !held.writes.anyFailed {
            let query: PostgresQuery = "DELETE FROM latchkey_leases WHERE namespace = \(held.namespace) AND holder = \(held.holder)"
            do {
                _ = try await held.perform("give the lease back", entry: nil) { try await $0.query(query, logger: logger).collect() }
            } catch {
                logger.warning("the namespace's lease could not be given back; it runs out on its own")
            }
        }
        if !held.connection.isClosed { await unlock(held) }
        try? await held.connection.close()
    }
}

/// The waits between a lock's or a lease's tries: 2 ms, doubling up to 100 ms.
private struct TryPause {
    private var pause = Duration.milliseconds(2)

    mutating func wait() async {
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(100))
    }
}

extension PostgresQuery.StringInterpolation {
    /// The lease condition — the namespace's lease names `held`'s holder and has not run
    /// out — with its values bound: the one home of the check every write under the lock
    /// carries (`WHERE \(leaseHeldBy: held)`) and ``HeldLock/leaseStillMine()`` asks.
    mutating func appendInterpolation(leaseHeldBy held: HeldLock) {
        appendLiteral("EXISTS (SELECT 1 FROM latchkey_leases WHERE namespace = ")
        appendInterpolation(held.namespace)
        appendLiteral(" AND holder = ")
        appendInterpolation(held.holder)
        appendLiteral(" AND expires_at > now())")
    }
}
