public import Foundation

/// The time source of a client: wall-clock `now` (token expiries are absolute times)
/// and cancellable sleeping until a moment. Inject ``ManualClock`` to run heartbeats,
/// renewals and back-offs in simulated time.
public protocol SessionClock: Sendable {
    /// The current time.
    var now: Date { get }

    /// Suspends until `deadline`, or returns at once if it has passed.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while sleeping.
    func sleep(until deadline: Date) async throws
}

extension SessionClock {
    /// Suspends for `interval`.
    public func sleep(for interval: Duration) async throws {
        try await sleep(until: now.addingTimeInterval(interval.timeInterval))
    }
}

/// The system's wall clock; sleeps use the monotonic clock.
public struct SystemClock: SessionClock {
    /// Creates the system clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        guard interval > 0 else { return }
        try await Task.sleep(for: .nanoseconds(Int64(min(interval, 1e9) * 1e9)))
    }
}
