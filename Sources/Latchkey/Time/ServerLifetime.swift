public import Foundation

/// A lifetime a server stated in its own clock's times, carried over to the local clock.
///
/// A server's absolute times (Stytch's JWT `iat`/`exp`, social.plus's `issuedAt`/
/// `expiresAt`, an ID token's `session_expiry`) are read on a clock that can be minutes off
/// the device's. Used as they are, a device clock ahead of the server's finds every new token
/// already near its end and renews at once, again and again; one behind keeps a token the
/// server has stopped accepting. So they are only ever subtracted from each other, and the
/// difference — the lifetime — starts at the local moment the answer was received, as the
/// official SDKs' local timers do. Every adapter converts through this one type.
public struct ServerLifetime: Sendable, Hashable {
    /// The longest lifetime taken from a server: 400 days (Stytch sessions last at most 366).
    /// A larger difference, or one that is not finite, is capped to it.
    public static let maximum: TimeInterval = 400 * 86_400

    /// The lifetime in seconds, within `0...maximum`.
    public let seconds: TimeInterval

    /// A lifetime of `seconds`, clamped to `0...maximum`; nil when it is not a number.
    public init?(seconds: TimeInterval) {
        guard !seconds.isNaN else { return nil }
        self.seconds = min(max(seconds, 0), Self.maximum)
    }

    /// The lifetime from `start` to `end`, both read on the server's clock (an end before its
    /// start is a lifetime of zero); nil when either is missing.
    public init?(from start: Date?, to end: Date?) {
        guard let start, let end else { return nil }
        self.init(seconds: end.timeIntervalSince(start))
    }

    /// The moment this lifetime ends when it started at `start` on the local clock.
    public func end(startingAt start: Date) -> Date {
        start.addingTimeInterval(seconds)
    }

    /// The local issue and expiry times of a token received at `receivedAt` (local clock)
    /// whose server stated `issuedAt` and `expiresAt` (server clock): `receivedAt`, and
    /// `receivedAt` + their difference. When the server did not state both, `fallback` is
    /// the lifetime; without one, a stated expiry is kept as it is (nothing relates it to
    /// the local clock), and with no expiry at all there is none.
    public static func localTimes(
        receivedAt: Date, issuedAt: Date?, expiresAt: Date?,
        fallback: TimeInterval? = nil
    ) -> (issuedAt: Date, expiresAt: Date?) {
        if let lifetime = ServerLifetime(from: issuedAt, to: expiresAt) ?? fallback.flatMap(ServerLifetime.init(seconds:)) {
            return (receivedAt, lifetime.end(startingAt: receivedAt))
        }
        return (receivedAt, expiresAt)
    }
}
