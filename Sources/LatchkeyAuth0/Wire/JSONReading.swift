internal import Foundation

extension Duration {
    /// The duration in seconds.
    var seconds: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }

    /// `interval` seconds, clamped to `0...10⁹`.
    static func clamped(seconds interval: TimeInterval) -> Duration {
        guard interval.isFinite else { return .zero }
        return .nanoseconds(Int64(max(0, min(interval, 1e9)) * 1e9))
    }
}
