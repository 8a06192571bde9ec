import Foundation

/// One of Auth0's per-key rate limits (`/userinfo`: per user ID), the token bucket its
/// rate-limit policy describes: `burst` requests at once, refilled at `perMinute`, on the
/// emulator clock. Every answer carries the lowercase `x-ratelimit-*` headers; the
/// reset is when the bucket is full again (Unix epoch seconds), as Auth0 defines it.
struct Auth0RateLimit: Sendable {
    /// The bucket's size (`x-ratelimit-limit`); 0 turns the limit off.
    let burst: Int
    /// Requests a minute the bucket refills at.
    let perMinute: Int

    /// Counted in sixtieths of a request, so whole seconds at a rate a minute refill
    /// exactly (12 s at 5 a minute is one request, not 0.999…).
    private struct Bucket {
        var sixtieths: Double
        var updated: Date
    }

    private var buckets: [String: Bucket] = [:]

    /// What one request was told.
    struct Decision: Sendable {
        var allowed: Bool
        var headers: [(name: String, value: String)]
    }

    init(burst: Int, perMinute: Int) {
        self.burst = max(0, burst)
        self.perMinute = max(1, perMinute)
    }

    var isOn: Bool { burst > 0 }

    /// Takes a request for `key` at `now`: allowed while the bucket holds one.
    mutating func take(_ key: String, now: Date) -> Decision {
        guard isOn else { return Decision(allowed: true, headers: []) }
        let capacity = Double(burst) * 60, rate = Double(perMinute)
        var bucket = buckets[key] ?? Bucket(sixtieths: capacity, updated: now)
        bucket.sixtieths = min(capacity, bucket.sixtieths + max(0, now.timeIntervalSince(bucket.updated)) * rate)
        bucket.updated = max(bucket.updated, now)
        let allowed = bucket.sixtieths >= 60
        if allowed { bucket.sixtieths -= 60 }
        buckets[key] = bucket
        let full = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + (capacity - bucket.sixtieths) / rate).rounded(.up))
        let headers = [
            ("x-ratelimit-limit", String(burst)), ("x-ratelimit-remaining", String(Int((bucket.sixtieths / 60).rounded(.down)))),
            ("x-ratelimit-reset", String(Timestamp.wholeSeconds(full))),
        ]
        return Decision(allowed: allowed, headers: headers)
    }
}
