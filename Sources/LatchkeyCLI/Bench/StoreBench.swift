import Foundation
import LatchkeyPostgres
import LatchkeySecrets

/// Times `get`, `set` and `remove` on every backend this machine has, for
/// `latchkey secrets bench`.
///
/// Each operation gets one untimed warm-up round, then timed rounds until
/// ``Plan/iterations`` or, when a ``Plan/budget`` is set, until that much wall time
/// (set-up included) is spent with at least ``Plan/minimumSamples`` timings. Only the
/// call itself is inside the clock: the set-up a round needs (the entry to remove, the
/// new store and the emptied keyring) happens before it starts.
///
/// Rows: memory, kernel keyring, encrypted file, the layered store twice — *cold*,
/// a new store and an empty namespace keyring before each call (the first call of a
/// process after a reboot or logout: the key is read or derived, then the file), and
/// *warm*, the same store again (every later call) — and the desktop's Secret Service.
/// Keyring rows are skipped with the probe's reason where the keyring is not usable,
/// the keyring's own row also for values over its 32,767 bytes; the Secret Service row where none answers (no
/// desktop session). With a database URL (`--postgres`, `LATCHKEY_POSTGRES_URL`) a
/// PostgreSQL row follows, over the network to that database; without one it is not
/// listed. A store error ends that row only; the others still run.
struct StoreBench {
    /// An operation the bench times.
    enum Operation: String, CaseIterable {
        case get, set, remove
    }

    /// A row of the comparison.
    enum Target: String, CaseIterable {
        case memory, keyring, file
        case layeredCold = "layered-cold"
        case layeredWarm = "layered-warm"
        case secretService = "secret-service"
        case postgres

        /// The row's name in the table.
        var label: String {
            switch self {
            case .memory: "memory"
            case .keyring: "kernel keyring"
            case .file: "encrypted file"
            case .layeredCold: "layered, cold"
            case .layeredWarm: "layered, warm"
            case .secretService: "Secret Service"
            case .postgres: "PostgreSQL"
            }
        }

        /// The backend `--backend` and the automatic selection call it (none for
        /// PostgreSQL, which an app sets up in code).
        var backend: SecretStoreSelection.Backend? {
            switch self {
            case .memory: .memory
            case .keyring: .keyring
            case .file: .file
            case .layeredCold, .layeredWarm: .layered
            case .secretService: .secretService
            case .postgres: nil
            }
        }

        /// The row's backend name in the JSON report.
        var backendName: String { backend?.rawValue ?? rawValue }

        /// Whether the row needs the kernel keyring.
        var needsKeyring: Bool { self == .keyring || backend == .layered }
    }

    /// What happened to a row.
    enum Outcome {
        /// Timed: one sample per operation.
        case measured([Operation: BenchSample])
        /// Not run, and why (the keyring is not usable here, the value is too large).
        case skipped(String)
        /// A store failed; the message (never a value) says how.
        case failed(String)
    }

    /// How much to measure.
    struct Plan {
        /// The size of the value stored, in bytes.
        var valueBytes: Int
        /// The most timed rounds per operation.
        var iterations: Int
        /// The wall time an operation may take before it stops early (nil: never).
        var budget: Duration?
        /// The fewest timed rounds before a budget may stop an operation.
        var minimumSamples = 5
        /// The PostgreSQL database to measure, or `nil` for no PostgreSQL row.
        var postgresURL: String?
    }

    /// The rows this run lists: every target, PostgreSQL only with a database.
    var targets: [Target] { Target.allCases.filter { $0 != .postgres || plan.postgresURL != nil } }

    let plan: Plan
    let workspace: BenchWorkspace
    let keyring: KeyringProbe
    let secretService: SecretServiceProbe
    let progress: ProgressLine

    /// The entry every round reads, writes and removes.
    private let entry = "bench"

    /// Runs every row in ``Target`` order.
    /// - Throws: ``InterruptSignal/Interrupted`` when SIGINT or SIGTERM arrived.
    func run() async throws -> [(Target, Outcome)] {
        let value = (0..<plan.valueBytes).map { _ in UInt8.random(in: 0...255) }
        let runnable = targets.filter { skipReason($0) == nil }
        var results: [(Target, Outcome)] = []
        var finishedOperations = 0
        for target in targets {
            if let reason = skipReason(target) {
                results.append((target, .skipped(reason)))
                continue
            }
            let outcome = try await measure(target, value: value) { operation, within in
                let done = Double(finishedOperations) + within
                progress.update(done / Double(runnable.count * Operation.allCases.count), "\(target.label) · \(operation.rawValue)")
            } finished: {
                finishedOperations += 1
            }
            results.append((target, outcome))
        }
        progress.finish()
        return results
    }

    /// Why `target` cannot run here, or nil.
    private func skipReason(_ target: Target) -> String? {
        if target == .secretService {
            return secretService.isAvailable ? nil : "no Secret Service: \(secretService.reason)"
        }
        guard target.needsKeyring else { return nil }
        guard keyring.isAvailable else { return "the kernel keyring is not usable: \(keyring.reason)" }
        guard target != .keyring || plan.valueBytes <= KeyringSecretStore.maxValueBytes else {
            return
                "the value is \(ByteSize.grouped(plan.valueBytes)) bytes; a keyring entry holds at most \(ByteSize.grouped(KeyringSecretStore.maxValueBytes))"
        }
        return nil
    }

    /// Times the three operations on `target`, then empties its store.
    private func measure(
        _ target: Target, value: [UInt8], progress: (Operation, Double) -> Void,
        finished: () -> Void
    ) async throws -> Outcome {
        let store: any SecretStore
        var database: PostgresSecretDatabase?
        defer { database?.shutdown() }
        do {
            switch target {
            case .memory: store = try MemorySecretStore(namespace: workspace.namespace("memory"))
            case .keyring: store = try KeyringSecretStore(namespace: workspace.namespace("keyring"))
            case .file: store = try EncryptedFileSecretStore(namespace: workspace.namespace("file"), configuration: workspace.configuration)
            case .layeredCold, .layeredWarm:
                store = try LayeredSecretStore(namespace: workspace.namespace("layered"), configuration: workspace.configuration)
            case .secretService: store = try SecretServiceSecretStore(namespace: workspace.secretServiceNamespace)
            case .postgres:
                var options = PostgresSecretDatabase.Options()
                options.keyConfiguration = workspace.configuration
                let opened = try PostgresSecretDatabase(url: plan.postgresURL ?? "", options: options)
                database = opened
                store = try opened.store(namespace: workspace.namespace("postgres"))
            }
        } catch {
            return .failed("\(error)")
        }
        let entry = self.entry
        // Cold: a new store and an empty namespace keyring before each round, as a new
        // process finds them after a reboot or logout.
        var current = store
        let startCold: () async throws -> Void
        if target == .layeredCold {
            let namespace = store.namespace
            let configuration = workspace.configuration
            startCold = {
                let fresh = try LayeredSecretStore(namespace: namespace, configuration: configuration)
                try await fresh.keyring.removeAll()
                current = fresh
            }
        } else {
            startCold = {}
        }
        var samples: [Operation: BenchSample] = [:]
        do {
            // Alternate two values: a store that skips a write changing nothing (the file
            // store does) would otherwise time a no-op after the first call.
            var other = value
            if !other.isEmpty { other[other.count - 1] ^= 0xFF }
            let values = [value, other]
            var round = 0
            samples[.set] = try await time(.set, progress: progress, prepare: startCold) {
                round += 1
                try await current.set(entry, values[round % 2])
            }
            try await store.set(entry, value)
            finished()
            // One check that the store gives back what it was given, outside the clock.
            guard try await store.get(entry) == value else {
                return .failed("the value read back differs from the value written")
            }
            samples[.get] = try await time(.get, progress: progress, prepare: startCold) { _ = try await current.get(entry) }
            finished()
            samples[.remove] = try await time(
                .remove, progress: progress,
                prepare: {
                    try await store.set(entry, value)
                    try await startCold()
                }
            ) { _ = try await current.remove(entry) }
            finished()
            try await store.removeAll()
        } catch let error as InterruptSignal.Interrupted {
            throw error
        } catch {
            _ = try? await store.removeAll()
            return .failed("\(error)")
        }
        return .measured(samples)
    }

    /// One warm-up round, then timed rounds of `body`, each after an untimed `prepare`.
    private func time(
        _ operation: Operation, progress: (Operation, Double) -> Void,
        prepare: () async throws -> Void, _ body: () async throws -> Void
    ) async throws -> BenchSample {
        let clock = ContinuousClock()
        try await prepare()
        try await body()
        var nanoseconds: [Double] = []
        nanoseconds.reserveCapacity(plan.iterations)
        let started = clock.now
        while nanoseconds.count < plan.iterations {
            try InterruptSignal.check()
            try await prepare()
            let start = clock.now
            try await body()
            let elapsed = clock.now - start
            nanoseconds.append(Self.nanoseconds(elapsed))
            var within = Double(nanoseconds.count) / Double(plan.iterations)
            if let budget = plan.budget {
                let spent = clock.now - started
                if nanoseconds.count >= plan.minimumSamples, spent >= budget { break }
                within = max(within, Self.nanoseconds(spent) / Self.nanoseconds(budget))
            }
            progress(operation, min(within, 1))
        }
        return BenchSample(nanoseconds: nanoseconds)
    }

    /// A duration in nanoseconds.
    static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
