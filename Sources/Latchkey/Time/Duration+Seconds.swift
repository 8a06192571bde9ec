package import Foundation

extension Duration {
    /// The duration in seconds (every module converts through these two: one home).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, saturating at `Int64`'s bounds (a timer, a
    /// deadline take `Int64`; a huge duration never traps).
    package var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflowed { return seconds < 0 ? .min : .max }
        return sum
    }

    /// A duration of `interval` seconds (negative intervals become zero).
    package static func interval(_ interval: TimeInterval) -> Duration {
        // NaN and infinities come from outside (headers, JSON): never trap on them.
        guard interval.isFinite, interval > 0 else { return .zero }
        return .nanoseconds(Int64(min(interval, 1e9) * 1e9))
    }
}
