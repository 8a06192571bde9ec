package import Foundation

extension Duration {
    /// The duration in seconds (every module converts through these two: one home).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// A duration of `interval` seconds (negative intervals become zero).
    package static func interval(_ interval: TimeInterval) -> Duration {
        // NaN and infinities come from outside (headers, JSON): never trap on them.
        guard interval.isFinite, interval > 0 else { return .zero }
        return .nanoseconds(Int64(min(interval, 1e9) * 1e9))
    }
}
