internal import Foundation
internal import Latchkey

/// Keeps `/userinfo` within Auth0's limit for it — per user ID, a burst of 10 and 5
/// requests a minute after that — so the heartbeat and restores never run into a 429.
///
/// Each user has a token bucket of Auth0's size on the client's clock; a call that would
/// overdraw it is not sent but refused here as rate limited, with the wait until the
/// bucket holds a request again (the core's heartbeat waits that long and keeps the
/// session). Auth0's own count wins whenever it is lower (other clients of the same user
/// share it): each answer's `x-ratelimit-remaining` caps the bucket, and a 429 stops
/// every call until its `x-ratelimit-reset` — the wait from the answer's `Date` to the
/// reset, both on Auth0's clock, started when the 429 arrived here.
actor UserInfoRateLimit {
    /// Auth0's documented limit for `/userinfo` (every plan): the burst …
    static let burst = 10
    /// … and the sustained rate, in requests a minute.
    static let perMinute = 5

    private struct Bucket {
        var tokens: Double
        var updated: Date
        /// A 429 said nothing is answered before this.
        var blockedUntil: Date?
    }

    private var buckets: [String: Bucket] = [:]
    private let capacity = Double(burst)
    private let perSecond = Double(perMinute) / 60

    /// Takes one call for `user` at `now`, or throws ``/Latchkey/AuthError/Code/rateLimited`` (the
    /// call is not to be sent) with how long to wait.
    func take(for user: String, now: Date) throws(AuthError) {
        var bucket = refilled(user, now: now)
        if let until = bucket.blockedUntil, until > now {
            throw Self.refusal(wait: until.timeIntervalSince(now), "Auth0 answered 429 to /userinfo; not asking again before its x-ratelimit-reset")
        }
        bucket.blockedUntil = nil
        // A hair under one counts: waiting the 12 s a token takes must always be enough.
        guard bucket.tokens >= 1 - 1e-9 else {
            buckets[user] = bucket
            throw Self.refusal(
                wait: (1 - bucket.tokens) / perSecond,
                "the session check is not sent: it would exceed Auth0's /userinfo limit (\(Self.perMinute) a minute per user)")
        }
        bucket.tokens = max(0, bucket.tokens - 1)
        buckets[user] = bucket
    }

    /// Learns from Auth0's answer, received at `now` (local clock): `x-ratelimit-remaining`
    /// caps the bucket; a 429 blocks for `retryAfter` — its reset measured against its own
    /// `Date`, never against this clock — or, when it said nothing usable, a minute.
    func record(for user: String, status: Int, remaining: Int?, retryAfter: Duration?, now: Date) {
        var bucket = refilled(user, now: now)
        if let remaining { bucket.tokens = min(bucket.tokens, Double(max(0, remaining))) }
        if status == 429 {
            bucket.tokens = 0
            bucket.blockedUntil = now.addingTimeInterval(retryAfter?.timeInterval ?? 60)
        }
        buckets[user] = bucket
    }

    private func refilled(_ user: String, now: Date) -> Bucket {
        guard var bucket = buckets[user] else { return Bucket(tokens: capacity, updated: now) }
        bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * perSecond)
        bucket.updated = max(bucket.updated, now)
        return bucket
    }

    private static func refusal(wait seconds: TimeInterval, _ message: String) -> AuthError {
        AuthError.rateLimited(retryAfter: .interval(seconds.rounded(.up)), message, providerCode: "too_many_requests", httpStatus: nil)
    }
}
