import Foundation
import LatchkeySecrets
import Synchronization
import Testing

@testable import LatchkeyPostgres

extension PostgresTests {
    /// The namespace lock across instances (each a database pool of its own, as separate
    /// servers would have), and what happens when the lock's connection or the server dies.
    @Suite("PostgreSQL store: the lock across instances")
    struct LockTests {
        /// The backend process holding `store`'s advisory lock, from `pg_locks`.
        private func lockHolder(_ server: PostgresTestServer, _ store: PostgresSecretStore) async throws -> String? {
            let bits = UInt64(bitPattern: store.lockKey)
            return try await server.sql(
                """
                SELECT pid::text FROM pg_locks WHERE locktype = 'advisory' AND granted
                AND classid = \(bits >> 32) AND objid = \(bits & 0xFFFF_FFFF) AND objsubid = 1
                """
            ).first ?? nil
        }

        @Test func threeInstancesSerializeTheirReadModifyWrites() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let databases = try (0..<3).map { _ in try keys.database(server) }
            defer { for database in databases { database.shutdown() } }
            let namespace = uniqueNamespace("counter")
            let stores = try databases.map { try $0.store(namespace: namespace) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for store in stores {
                    for _ in 0..<15 {
                        group.addTask {
                            try await store.withExclusiveLock {
                                let current = Int(try await store.string("counter") ?? "0") ?? 0
                                await Task.yield()
                                try await store.set("counter", String(current + 1))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await stores[0].string("counter") == "45")
            try await stores[0].removeAll()
        }

        @Test func aWaiterGivesUpAfterTheLockTimeoutWithAClearError() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let holder = try keys.database(server)
            let waiter = try keys.database(server, lockTimeout: .seconds(1))
            defer {
                holder.shutdown()
                waiter.shutdown()
            }
            let namespace = uniqueNamespace("timeout")
            let held = try holder.store(namespace: namespace)
            let waiting = try waiter.store(namespace: namespace)
            let release = Flag()
            let holding = Task {
                try await held.withExclusiveLock {
                    try await held.set("owner", "holder")
                    while !release.isSet { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            #expect(await poll { (try? await waiting.string("owner")) == "holder" })
            let error = await storeError { try await waiting.withExclusiveLock { try await waiting.set("owner", "waiter") } }
            #expect(error?.code == .unavailable)
            #expect(error.map { "\($0)".contains("another instance held the namespace's lock") } == true, "\(String(describing: error))")
            #expect(try await waiting.string("owner") == "holder", "the waiter wrote nothing")
            release.set()
            try await holding.value
            // Free again: the waiter takes it at once.
            try await waiting.withExclusiveLock { try await waiting.set("owner", "waiter") }
            #expect(try await held.string("owner") == "waiter")
            try await held.removeAll()
        }

        @Test func aKilledLockConnectionReleasesTheLockAndNothingIsWrittenWithoutIt() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let first = try keys.database(server)
            let second = try keys.database(server)
            defer {
                first.shutdown()
                second.shutdown()
            }
            let namespace = uniqueNamespace("killed")
            let store = try first.store(namespace: namespace)
            let other = try second.store(namespace: namespace)
            try await store.set("refresh", "old")

            let error = await storeError {
                try await store.withExclusiveLock {
                    #expect(try await store.string("refresh") == "old")
                    let pid = try #require(try await lockHolder(server, store))
                    _ = try await server.sql("SELECT pg_terminate_backend(\(pid))")
                    // The server let go: another instance takes the lock while this body
                    // still runs.
                    try await other.withExclusiveLock { try await other.set("refresh", "theirs") }
                    // This body's save fails: it would write without the lock.
                    try await store.set("refresh", "mine")
                }
            }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            #expect(try await other.string("refresh") == "theirs")

            // A body that writes nothing still learns the lock was lost: its result is
            // thrown away, not returned.
            let discarded = await storeError {
                _ = try await store.withExclusiveLock { () async throws -> String in
                    let pid = try #require(try await lockHolder(server, store))
                    _ = try await server.sql("SELECT pg_terminate_backend(\(pid))")
                    #expect(await poll { (try? await lockHolder(server, store)) == nil })
                    return "renewed under a lost lock"
                }
            }
            #expect(discarded?.code == .unavailable)
            #expect(discarded.map { "\($0)".contains("the result was discarded") } == true, "\(String(describing: discarded))")
            // And the lock works as before afterwards.
            try await store.withExclusiveLock { try await store.set("refresh", "mine") }
            #expect(try await other.string("refresh") == "mine")
            try await store.removeAll()
        }

        @Test func aServerRestartIsAClearErrorThenTheStoreRecovers() async throws {
            guard let server = PostgresTestServer.current(), server.restartScript != nil else {
                if ProcessInfo.processInfo.environment["CI"] == "true", PostgresTestServer.current() != nil {
                    Issue.record("CI=true and LATCHKEY_TEST_POSTGRES_RESTART is not set")
                }
                return
            }
            let keys = try KeyDirectory()
            let database = try keys.database(server)
            defer { database.shutdown() }
            let store = try database.store(namespace: uniqueNamespace("restart"))
            try await store.set("refresh", "before")
            let error = await storeError {
                try await store.withExclusiveLock {
                    try await server.restart()
                    try await store.set("refresh", "during")
                }
            }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            // The pool reconnects: within a generous minute the store answers again.
            let recovered = await poll(timeout: .seconds(60), every: .milliseconds(50)) {
                (try? await store.string("refresh")) == "before"
            }
            #expect(recovered, "the store answered after the restart")
            try await store.withExclusiveLock { try await store.set("refresh", "after") }
            #expect(try await store.string("refresh") == "after")
            try await store.removeAll()
        }
    }
}
