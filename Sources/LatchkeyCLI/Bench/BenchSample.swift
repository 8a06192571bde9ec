import Foundation

/// The timings of one operation on one backend, in nanoseconds, and what a table
/// shows of them.
struct BenchSample: Sendable {
    /// Every timing, in the order taken.
    let nanoseconds: [Double]

    /// Timings sorted ascending (computed once).
    private let sorted: [Double]

    init(nanoseconds: [Double]) {
        self.nanoseconds = nanoseconds
        self.sorted = nanoseconds.sorted()
    }

    /// How many timings there are.
    var count: Int { sorted.count }

    /// The median (the mean of the two middle timings for an even count); 0 when empty.
    var median: Double {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The 99th percentile by nearest rank: the smallest timing at least 99% of them
    /// do not exceed (the maximum when there are fewer than 100); 0 when empty.
    var p99: Double { percentile(99) }

    /// The fastest timing; 0 when empty.
    var minimum: Double { sorted.first ?? 0 }

    /// The slowest timing; 0 when empty.
    var maximum: Double { sorted.last ?? 0 }

    /// The `percent`th percentile by nearest rank (`percent` in 1...100).
    func percentile(_ percent: Int) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let clamped = min(max(percent, 1), 100)
        // ceil(p/100 · n) as a 1-based rank, in integers.
        let rank = (clamped * sorted.count + 99) / 100
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// A duration for people with three significant digits: "412 ns", "3.21 µs",
    /// "12.4 ms", "1.02 s".
    static func format(nanoseconds value: Double) -> String {
        guard value.isFinite, value >= 0 else { return "—" }
        let (scaled, unit): (Double, String) =
            switch value {
            case ..<1_000: (value, "ns")
            case ..<1_000_000: (value / 1_000, "µs")
            case ..<1_000_000_000: (value / 1_000_000, "ms")
            default: (value / 1_000_000_000, "s")
            }
        let digits = scaled >= 100 || unit == "ns" ? 0 : scaled >= 10 ? 1 : 2
        return String(format: "%.\(digits)f", scaled) + " " + unit
    }
}
