public import Foundation

/// A wait a server asked for by naming an instant on its own clock — an HTTP-date
/// `Retry-After`, Auth0's `x-ratelimit-reset` — carried over to the local clock.
///
/// The instant is only ever subtracted from the same answer's `Date` header, which the
/// server wrote on the same clock; never from the device's clock, which can be minutes off
/// the server's: ahead, the wait would come out as nothing and the client would ask again
/// at once, into the same limit; behind, it would wait minutes longer than asked. The
/// difference starts at the local moment the answer was received. Without a readable
/// `Date` nothing relates the instant to the local clock, so there is no wait and the
/// caller falls back to its own back-off. Every server-stated wait goes through here, as
/// every server-stated lifetime goes through ``ServerLifetime``.
public struct ServerWait: Sendable, Hashable {
    /// The longest wait taken from a server: a day. A longer one is capped to it.
    public static let maximum: TimeInterval = 86_400

    /// The wait in seconds, within `0...maximum`.
    public let seconds: TimeInterval

    /// A wait of `seconds` (a delay the server stated as such), clamped to `0...maximum`;
    /// nil when it is not a number.
    public init?(seconds: TimeInterval) {
        guard !seconds.isNaN else { return nil }
        self.seconds = min(max(seconds, 0), Self.maximum)
    }

    /// The wait until `instant`, both it and `serverDate` (the answer's `Date`) read on the
    /// server's clock: their difference, clamped (an instant already past is no wait);
    /// nil when either is missing.
    public init?(until instant: Date?, serverDate: Date?) {
        guard let instant, let serverDate else { return nil }
        self.init(seconds: instant.timeIntervalSince(serverDate))
    }

    /// The wait as a duration.
    public var duration: Duration { .interval(seconds) }

    /// The moment the wait is over when the answer arrived at `receivedAt` (local clock).
    public func end(startingAt receivedAt: Date) -> Date {
        receivedAt.addingTimeInterval(seconds)
    }
}
