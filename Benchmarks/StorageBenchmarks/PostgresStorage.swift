import Benchmark
import BenchmarkSupport
import Foundation
import LatchkeyPostgres
import LatchkeySecrets

// The PostgreSQL store, when a database is named by LATCHKEY_POSTGRES_URL (a
// postgres:// URL; Scripts/with-postgres.sh starts a private one): get, set and remove
// over the network, and a renewal under the lock — take the namespace's advisory lock on
// a connection of its own, read the session, write the rotated one, let go — the path
// every renewal of a fleet takes. Without a database these rows are not registered (a
// note says so); they are in `UNGATED` (Scripts/benchmarks.py), so `make bench-check`
// never gates on a row that crosses a network, with or without a database.

/// The database named by the environment, or `nil`.
let postgresDatabase: PostgresSecretDatabase? = {
    guard let url = ProcessInfo.processInfo.environment["LATCHKEY_POSTGRES_URL"], !url.isEmpty else { return nil }
    var options = PostgresSecretDatabase.Options()
    options.keyConfiguration = scratchConfiguration
    return try? PostgresSecretDatabase(url: url, options: options)
}()

func registerPostgresStorage(size: ValueSize) {
    guard let database = postgresDatabase else {
        if size.label == ValueSize.all.first?.label {
            FileHandle.standardError.write(Data("StorageBenchmarks: PostgreSQL rows skipped: LATCHKEY_POSTGRES_URL is not set\n".utf8))
        }
        return
    }
    let bytes = size.value
    let other = bytes.map { $0 ^ 0xFF }
    let configuration = Suite.configuration(warmup: 2)
    func register(
        _ operation: String, prepare: @escaping (any SecretStore) async throws -> Void = { _ in },
        _ body: @escaping (Benchmark, PostgresSecretStore) async throws -> Void
    ) {
        let fixture = StoreFixture { try database.store(namespace: namespace("\(operation)-postgres", size)) }
        Benchmark(
            Suite.name("Storage", [operation, "postgres", size.label], .latchkey), configuration: configuration,
            closure: { benchmark in
                guard let store = fixture.store as? PostgresSecretStore else { fixtureFailure("not a PostgreSQL store") }
                try await body(benchmark, store)
            },
            setup: {
                try fixture.setUp()
                try await prepare(fixture.store)
            },
            teardown: {
                await fixture.tearDown()
            })
    }
    register("get", prepare: { try await $0.set(entry, bytes) }) { benchmark, store in
        try await benchmark.measure { blackHole(try await store.get(entry)) }
    }
    let values = Alternator(bytes, other)
    register("set") { benchmark, store in
        try await benchmark.measure { try await store.set(entry, values.next()) }
    }
    register("remove") { benchmark, store in
        try await benchmark.measureOnce(prepare: { try await store.set(entry, bytes) }) {
            guard try await store.remove(entry) else { fixtureFailure("nothing removed") }
        }
    }
    let renewed = Alternator(bytes, other)
    register("renewal-under-lock", prepare: { try await $0.set(entry, bytes) }) { benchmark, store in
        try await benchmark.measure {
            let value = renewed.next()
            try await store.withExclusiveLock {
                blackHole(try await store.get(entry))
                try await store.set(entry, value)
            }
        }
    }
}
