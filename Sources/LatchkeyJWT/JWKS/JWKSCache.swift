public import Foundation

/// A JWKS fetched over the network and cached, shared by every verification.
///
/// - Honours `Cache-Control: max-age` (clamped to `minimumTTL...maximumTTL`; `no-store`
///   and `no-cache` count as the minimum), `defaultTTL` when there is none.
/// - A token whose `kid` is unknown triggers one refetch, at most once per
///   `refetchInterval`, so a flood of bogus kids cannot hammer the server.
/// - When a refetch fails, the last good set keeps being served.
/// - Concurrent callers share one in-flight fetch.
public actor JWKSCache {
    /// What the fetcher returns: the body and the `Cache-Control` header, if any.
    public struct Response: Sendable {
        public var body: [UInt8]
        public var cacheControl: String?
        public init(body: [UInt8], cacheControl: String? = nil) {
            self.body = body
            self.cacheControl = cacheControl
        }
    }

    /// Cache tuning.
    public struct Options: Sendable {
        /// How long a set without `max-age` stays fresh. Default 10 minutes.
        public var defaultTTL: TimeInterval = 600
        /// Lower bound on a set's freshness. Default 30 s.
        public var minimumTTL: TimeInterval = 30
        /// Upper bound on a set's freshness. Default 24 h.
        public var maximumTTL: TimeInterval = 86_400
        /// At most one unknown-`kid` refetch per interval. Default 60 s.
        public var refetchInterval: TimeInterval = 60
        /// After a failed fetch, no new attempt for this long: the last good set (or the
        /// last error, when there is none) is served instead. Default 10 s.
        public var retryAfterFailure: TimeInterval = 10
        public init() {}
    }

    private let fetcher: @Sendable () async throws -> Response
    private let options: Options
    private let now: @Sendable () -> Date

    private var current: JWKSet?
    private var freshUntil: Date = .distantPast
    private var lastUnknownKIDRefetch: Date = .distantPast
    private var inFlight: Task<FetchedSet, any Error>?
    private var lastFailure: (at: Date, error: any Error)?
    /// Completed fetch attempts (successful or not), for tests and diagnostics.
    public private(set) var fetchCount = 0

    /// A cache over `fetcher` (for example an HTTP GET of `/.well-known/jwks.json`).
    public init(options: Options = Options(), now: @escaping @Sendable () -> Date = { Date() },
                fetcher: @escaping @Sendable () async throws -> Response) {
        self.fetcher = fetcher
        self.options = options
        self.now = now
    }

    /// The current key set: cached while fresh, else fetched (sharing a fetch already
    /// under way). A failed refresh serves the last good set; with none, it throws.
    public func keySet() async throws -> JWKSet {
        if let current, now() < freshUntil { return current }
        if let lastFailure, now().timeIntervalSince(lastFailure.at) < options.retryAfterFailure {
            // A failing server is not retried on every verification.
            if let current { return current }
            throw lastFailure.error
        }
        do {
            return try await refresh()
        } catch {
            if let current { return current }
            throw error
        }
    }

    /// Verifies a JWT with the cached keys, refetching once for an unknown `kid`.
    public func verify(_ token: String, options validation: JWTValidationOptions = JWTValidationOptions()) async throws -> JWT {
        let jws = try CompactJWS(token, options: validation.jws)
        return try JWT.verified(jws, keys: try await keysVerifying(jws), options: validation)
    }

    /// Verifies a JWS's signature with the cached keys (any payload).
    public func verifyJWS(_ token: String, options: JWSOptions = JWSOptions()) async throws -> CompactJWS {
        let jws = try CompactJWS(token, options: options)
        let keys = try await keysVerifying(jws)
        try jws.verify(with: keys, options: options)
        return jws
    }

    /// Forgets the cached set, so the next call fetches.
    public func invalidate() {
        freshUntil = .distantPast
    }

    private func keysVerifying(_ jws: CompactJWS) async throws -> JWKSet {
        let keys = try await keySet()
        guard let kid = jws.header.keyID, !keys.contains(keyID: kid) else { return keys }
        // Unknown kid: the issuer may have rotated. Refetch, but not more than once per interval.
        let time = now()
        guard time.timeIntervalSince(lastUnknownKIDRefetch) >= self.options.refetchInterval else { return keys }
        lastUnknownKIDRefetch = time
        do {
            return try await refresh()
        } catch {
            return keys
        }
    }

    private func refresh() async throws -> JWKSet {
        if let inFlight { return try await inFlight.value.set }
        let fetcher = self.fetcher
        let options = self.options
        let task = Task<FetchedSet, any Error> {
            let response = try await fetcher()
            return FetchedSet(set: try JWKSet(json: response.body), ttl: Self.ttl(from: response.cacheControl, options: options))
        }
        inFlight = task
        defer { inFlight = nil }
        fetchCount += 1
        let fetched: FetchedSet
        do {
            fetched = try await task.value
        } catch {
            lastFailure = (now(), error)
            throw error
        }
        lastFailure = nil
        current = fetched.set
        freshUntil = now().addingTimeInterval(fetched.ttl)
        return fetched.set
    }

    nonisolated static func ttl(from cacheControl: String?, options: Options) -> TimeInterval {
        guard let cacheControl else { return options.defaultTTL }
        var ttl: TimeInterval?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            // A directive of only "=" splits into nothing; the header is server input, so skip it.
            guard let name = parts.first else { continue }
            switch name {
            case "no-store", "no-cache": return options.minimumTTL
            case "max-age" where parts.count == 2:
                if let seconds = TimeInterval(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 { ttl = seconds }
            default: break
            }
        }
        return min(max(ttl ?? options.defaultTTL, options.minimumTTL), options.maximumTTL)
    }
}

/// A fetched set and how long it stays fresh.
struct FetchedSet: Sendable {
    let set: JWKSet
    let ttl: TimeInterval
}
