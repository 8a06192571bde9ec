import Benchmark
import BenchmarkSupport
import Foundation
import Latchkey
import LatchkeySecrets

// What one instance of a server pays per user it keeps signed in: a `SessionHost` loads
// 10,000 users' stored sessions (each user's first use: a store read, a client, its
// streams) and keeps them all. Memory stores, the provider in-process: the figures are
// the host's and the clients', not a database's. Per session: wall clock and mallocs (the
// tooling divides by the 10,000 operations of a sample) and resident memory (the growth
// of the process's RSS over the sample, divided the same way).

/// The process's resident set in bytes (`/proc/self/statm`), or 0 where it cannot be read.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let hostedSessions = 10_000
let residentMetric = BenchmarkMetric.custom("residentBytes", polarity: .prefersSmaller, useScalingFactor: false)

func registerHostBenchmarks() {
    Benchmark(
        Suite.name("Host", ["load10000"], .latchkey),
        configuration: Suite.configuration(warmup: 0, extraMetrics: [residentMetric])
    ) { benchmark in
        // One stored session, copied into every user's store.
        let seedStore = try MemorySecretStore(namespace: "bench-host-seed")
        let seeding = try await loggedInClient(lifetime: 3600, store: seedStore)
        await seeding.shutdown()
        guard let record = try await seedStore.get(SessionOptions().vaultEntryName) else { fixtureFailure("no stored session") }
        for _ in benchmark.scaledIterations {
            var stores: [String: MemorySecretStore] = [:]
            for user in 0..<hostedSessions {
                let store = try MemorySecretStore(namespace: "bench-host-\(user)")
                try await store.set(SessionOptions().vaultEntryName, record)
                stores["user-\(user)"] = store
            }
            let frozen = stores
            let host = SessionHost(
                provider: InProcessProvider(), options: SessionHostOptions(capacity: hostedSessions),
                transport: StaticTransport()
            ) { userID in
                guard let store = frozen[userID] else { fixtureFailure("no store for a user") }
                return store
            }
            let resident = residentBytes()
            let cpu = Suite.processCPUNanoseconds()
            benchmark.startMeasurement()
            for user in 0..<hostedSessions { blackHole(try await host.accessToken(for: "user-\(user)")) }
            benchmark.stopMeasurement()
            benchmark.measurement(Suite.cpuTime, Suite.processCPUNanoseconds() - cpu)
            benchmark.measurement(residentMetric, residentBytes() - resident)
            benchmark.measurement(Suite.operationsPerSample, hostedSessions)
            let figures = await host.statistics
            guard figures.resident == hostedSessions, figures.evictions == 0 else { fixtureFailure("the host let sessions go: \(figures)") }
            await host.shutdown()
        }
    }
}
