public import Foundation

/// When an access token counts as expired, and when to renew it ahead of that.
public struct RenewalPlan: Sendable, Hashable {
    /// From this moment the token is treated as expired (`tokenExpired`); `nil`: never.
    public var expiresAt: Date?
    /// From this moment the client renews in the background; `nil`: only on demand.
    public var renewAt: Date?

    /// Creates a plan.
    public init(expiresAt: Date?, renewAt: Date?) {
        self.expiresAt = expiresAt
        self.renewAt = renewAt
    }

    /// A plan with nothing scheduled.
    public static let none = RenewalPlan(expiresAt: nil, renewAt: nil)

    /// The seconds the token has left at `now` (negative once expired; infinite when it
    /// never expires): the one measure of a token's time-to-live, for the client and for
    /// ``StoredTokens`` alike.
    func timeLeft(at now: Date) -> TimeInterval {
        guard let expiresAt else { return .infinity }
        return expiresAt.timeIntervalSince(now)
    }

    /// Renew once `fraction` of the usable lifetime has passed, the usable lifetime
    /// ending `margin` before the real expiry (social.plus: fraction 0.8, margin 5 minutes).
    public static func proportional(
        issuedAt: Date?, expiresAt: Date?, fraction: Double = 0.8,
        margin: TimeInterval = 0
    ) -> RenewalPlan {
        guard let expiresAt else { return RenewalPlan(expiresAt: nil, renewAt: nil) }
        let usableEnd = expiresAt.addingTimeInterval(-margin)
        guard let issuedAt, issuedAt < usableEnd else {
            return RenewalPlan(expiresAt: usableEnd, renewAt: usableEnd.addingTimeInterval(-60))
        }
        let lifetime = usableEnd.timeIntervalSince(issuedAt)
        guard lifetime.isFinite else {
            // Times read from a token can be as far apart as -1.7e308 and 1.7e308: their
            // difference overflows to infinity, and so did the renewal, after the expiry.
            // The weighted mean of the two instants cannot overflow.
            let mean = issuedAt.timeIntervalSinceReferenceDate * (1 - fraction) + usableEnd.timeIntervalSinceReferenceDate * fraction
            return RenewalPlan(expiresAt: usableEnd, renewAt: min(Date(timeIntervalSinceReferenceDate: mean), usableEnd))
        }
        return RenewalPlan(expiresAt: usableEnd, renewAt: issuedAt.addingTimeInterval(lifetime * fraction))
    }
}
