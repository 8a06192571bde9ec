internal import Foundation

/// When to try a request again: jittered exponential back-off for transient failures,
/// the server's `Retry-After` for 429 and 503.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 disables retries).
    public var maxAttempts: Int
    /// The wait before the second attempt; it doubles each time.
    public var baseDelay: Duration
    /// The longest wait between two attempts. A `Retry-After` longer than this is not
    /// waited for: the response is returned so the caller can decide.
    public var maxDelay: Duration
    /// The fraction of each wait that is random (0 = none, 1 = "full jitter").
    public var jitter: Double

    /// Creates a policy.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8), jitter: Double = 0.5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt number `attempt` (1-based), with `random` in 0..<1.
    public func delay(afterAttempt attempt: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let full = min(baseDelay.timeInterval * pow(2, exponent), maxDelay.timeInterval)
        return .interval(full * (1 - jitter) + full * jitter * random)
    }
}

/// Back-off for background work that must keep trying (restore revalidation, heartbeat
/// after a network failure): 2 s, 4 s, 8 s, … up to a cap, jittered.
struct Backoff: Sendable {
    var policy: RetryPolicy
    private(set) var failures = 0

    init(base: Duration = .seconds(2), cap: Duration = .seconds(120), jitter: Double = 0.2) {
        policy = RetryPolicy(maxAttempts: .max, baseDelay: base, maxDelay: cap, jitter: jitter)
    }

    /// The wait after one more failure; `retryAfter` (from the server) wins when longer.
    mutating func next(retryAfter: Duration? = nil) -> Duration {
        failures += 1
        let delay = policy.delay(afterAttempt: failures)
        if let retryAfter, retryAfter > delay { return retryAfter }
        return delay
    }

    mutating func reset() { failures = 0 }
}

/// When the heartbeat checks again after a failure, as the Stytch iOS SDK does: five
/// quick retries at 2, 4, 8, 16 and 32 seconds (about a minute), then back to the
/// regular interval, where the count starts again. A provider's `Retry-After` wins when
/// longer. Without a regular interval (heartbeat off, but a restored session still to
/// revalidate) the retries go on at the last step, capped at two minutes.
struct HeartbeatSchedule: Sendable {
    let interval: Duration?
    private(set) var failures = 0

    static let quickRetries = 5

    init(interval: Duration?) { self.interval = interval }

    mutating func next(retryAfter: Duration? = nil) -> Duration {
        failures += 1
        let delay: Duration
        if failures <= Self.quickRetries {
            delay = .seconds(1 << failures)
        } else if let interval {
            failures = 0
            delay = interval
        } else {
            delay = .seconds(120)
        }
        if let retryAfter, retryAfter > delay { return retryAfter }
        return delay
    }

    mutating func reset() { failures = 0 }
}
