public import Benchmark
@_exported public import BenchmarkFixtures
import Glibc

/// How every Latchkey benchmark is named, configured and measured, so the results
/// tooling (`Scripts/report.py`, `Scripts/check.py`) can read any suite without a list
/// of benchmarks.
///
/// A benchmark's name is `<group>/<row…>/<role>`:
/// - `group` becomes one table in `results/latest.md` (`JWT`, `Vault`, `Storage`, …);
/// - the parts between the first and the last `/` form the row (`HS256/sig+claims`);
/// - `role` is `latchkey` for the measured subject, `limit:<label>` for the physical
///   limit (the raw primitive on the same input) and `peer:<label>` for the peer
///   library, all in the same run.
///
/// Names contain no spaces or underscores: package-benchmark writes thresholds to
/// `<target>.<name with "/" and " " turned into "_">.p90.json`, and the checker splits
/// those file names back on `_`.
public enum Suite {
    /// The role of one measurement in its row.
    public enum Role: Sendable {
        /// Latchkey itself: the subject of the row.
        case latchkey
        /// The physical limit (raw primitive, by-hand code), labelled for the table.
        case limit(String)
        /// The peer library, labelled for the table.
        case peer(String)

        var suffix: String {
            switch self {
            case .latchkey: "latchkey"
            case .limit(let label): "limit:" + label
            case .peer(let label): "peer:" + label
            }
        }
    }

    /// `<group>/<row parts…>/<role>`.
    public static func name(_ group: String, _ row: [String], _ role: Role) -> String {
        let parts = [group] + row + [role.suffix]
        for part in parts {
            precondition(
                !part.contains(" ") && !part.contains("_") && !part.isEmpty && (part == role.suffix || !part.contains("/")),
                "benchmark name part '\(part)' must be non-empty without spaces, underscores or slashes")
        }
        return parts.joined(separator: "/")
    }

    /// Process CPU time (user + system) in nanoseconds, read outside the measured
    /// region. package-benchmark's own `cpuTotal` counts scheduler ticks (10 ms),
    /// useless for microsecond operations.
    public static let cpuTime = BenchmarkMetric.custom("cpuTime", polarity: .prefersSmaller, useScalingFactor: true)
    /// Operations per sample (the scaling factor), so the tooling can report per-operation
    /// figures for every metric without knowing each benchmark's configuration.
    public static let operationsPerSample = BenchmarkMetric.custom("operationsPerSample", polarity: .prefersLarger, useScalingFactor: false)

    /// The metrics every benchmark records: wall clock, CPU time, throughput, mallocs.
    public static let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, cpuTime, operationsPerSample]

    /// How long each benchmark may run. `LATCHKEY_BENCH_SECONDS` (a decimal) overrides
    /// it for quick runs; the committed results use the default.
    public static let maxDuration: Duration = {
        if let text = getenv("LATCHKEY_BENCH_SECONDS").map({ String(cString: $0) }), let seconds = Double(text), seconds > 0 {
            return .milliseconds(Int(seconds * 1000))
        }
        return .seconds(1)
    }()

    /// The configuration for one benchmark. Operations under about 5 µs use
    /// `.kilo` (a sample times 1,000 calls) so clock reads do not distort them; the
    /// tooling divides every metric by ``operationsPerSample``.
    ///
    /// `extraMetrics` adds custom metrics a suite records itself with
    /// `benchmark.measurement(_:_:)` (a renewal count, say); they land in the exports
    /// and thresholds like the others.
    public static func configuration(
        scale: BenchmarkScalingFactor = .one, warmup: Int = 5,
        extraMetrics: [BenchmarkMetric] = []
    ) -> Benchmark.Configuration {
        .init(
            metrics: metrics + extraMetrics, timeUnits: .nanoseconds, warmupIterations: warmup, scalingFactor: scale,
            maxDuration: maxDuration, maxIterations: scale == .one ? 20_000 : 2_000)
    }

    /// The configuration for an `async` benchmark of an operation taking about
    /// `microseconds`: under 50 µs, a sample times 1,000 calls.
    ///
    /// package-benchmark runs each sample of an async benchmark in a task of its own,
    /// which may start on either core; a sample of one call then carries the move (cold
    /// caches, a thread woken), which measured about 1 µs here: the same by-hand vault
    /// read took 5.65 µs a sample through the async `measure` and 4.59 µs through the
    /// synchronous one, and 4.28 µs and 4.33 µs in samples of 1,000. Batching takes that
    /// out of both sides of a ratio.
    public static func asyncConfiguration(microseconds: Int, warmup: Int = 5) -> Benchmark.Configuration {
        configuration(scale: microseconds < 50 ? .kilo : .one, warmup: warmup)
    }

    public static func processCPUNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}

extension Benchmark {
    /// Runs `body` `scaledIterations` times inside the measured region and records the
    /// CPU time and the operation count around it.
    @inlinable
    public func measure(_ body: () throws -> Void) rethrows {
        let cpu = Suite.processCPUNanosecondsForInlining()
        startMeasurement()
        for _ in scaledIterations { try body() }
        stopMeasurement()
        record(cpuSince: cpu)
    }

    /// The `async` form of ``measure(_:)``.
    @inlinable
    public func measure(_ body: () async throws -> Void) async rethrows {
        let cpu = Suite.processCPUNanosecondsForInlining()
        startMeasurement()
        for _ in scaledIterations { try await body() }
        stopMeasurement()
        record(cpuSince: cpu)
    }

    /// One operation per sample with unmeasured preparation before it (setting up the
    /// entry a `remove` removes, say). Requires a scaling factor of one.
    @inlinable
    public func measureOnce(prepare: () async throws -> Void, _ body: () async throws -> Void) async rethrows {
        try await prepare()
        let cpu = Suite.processCPUNanosecondsForInlining()
        startMeasurement()
        try await body()
        stopMeasurement()
        record(cpuSince: cpu)
    }

    @usableFromInline
    func record(cpuSince start: Int) {
        measurement(Suite.cpuTime, Suite.processCPUNanoseconds() - start)
        measurement(Suite.operationsPerSample, scaledIterations.count)
    }
}

extension Suite {
    @usableFromInline
    static func processCPUNanosecondsForInlining() -> Int { processCPUNanoseconds() }
}
