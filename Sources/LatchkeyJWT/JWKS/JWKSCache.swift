import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A JWKS fetched over the network and cached, shared by every verification.
///
/// - Honours `Cache-Control: max-age` (clamped to `minimumTTL...maximumTTL`; `no-store`
///   and `no-cache` count as the minimum), `defaultTTL` when there is none.
/// - A token whose `kid` is unknown triggers one refetch, at most once per
///   `refetchInterval`, so a flood of bogus kids cannot hammer the server.
/// - When a refetch fails, the last good set keeps being served.
/// - Concurrent callers share one in-flight fetch.
///
/// Verification runs on the caller's thread: the hot path reads the current set under a
/// lock held for a few loads (no actor hop, no suspension) and checks the signature and
/// claims outside it, so a server verifies on every core at once. Only fetching and the
/// unknown-`kid` bookkeeping are serialized.
public final class JWKSCache: Sendable {
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

    /// Everything mutable, behind one lock that is never held across a suspension.
    private struct State {
        var current: JWKSet?
        var freshUntil: Date = .distantPast
        var lastUnknownKIDRefetch: Date = .distantPast
        var inFlight: (id: UInt64, task: Task<FetchedSet, any Error>)?
        var nextFetchID: UInt64 = 0
        var lastFailure: (at: Date, error: any Error)?
        var fetchCount = 0
    }

    private let fetcher: @Sendable () async throws -> Response
    private let options: Options
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// Fetch attempts started (successful, failed or under way), for tests and diagnostics.
    public var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// A cache over `fetcher` (for example an HTTP GET of `/.well-known/jwks.json`).
    public init(
        options: Options = Options(), now: @escaping @Sendable () -> Date = { Date() },
        fetcher: @escaping @Sendable () async throws -> Response
    ) {
        self.fetcher = fetcher
        self.options = options
        self.now = now
    }

    /// The current key set: cached while fresh, else fetched (sharing a fetch already
    /// under way). A failed refresh serves the last good set; with none, it throws.
    public func keySet() async throws -> JWKSet {
        if let fresh = freshSet() { return fresh }
        let time = now()
        let backingOff: Result<JWKSet, any Error>? = state.withLock { state in
            // A failing server is not retried on every verification.
            guard let failure = state.lastFailure, time.timeIntervalSince(failure.at) < options.retryAfterFailure else { return nil }
            return state.current.map { .success($0) } ?? .failure(failure.error)
        }
        if let backingOff { return try backingOff.get() }
        do {
            return try await refresh()
        } catch {
            if let current = state.withLock({ $0.current }) { return current }
            throw error
        }
    }

    /// Verifies a JWT with the cached keys, refetching once for an unknown `kid`.
    public func verify(_ token: String, options validation: JWTValidationOptions = JWTValidationOptions()) async throws -> JWT {
        let (jws, payload) = try JWT.parse(token, options: validation.jws)
        return try JWT.verified(jws, payload: payload, keys: try await keysVerifying(jws), options: validation)
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
        state.withLock { $0.freshUntil = .distantPast }
    }

    /// The current set while it is fresh: the hot path, a few loads under the lock.
    private func freshSet() -> JWKSet? {
        let time = now()
        return state.withLock { state in
            guard let current = state.current, time < state.freshUntil else { return nil }
            return current
        }
    }

    private func keysVerifying(_ jws: CompactJWS) async throws -> JWKSet {
        let keys: JWKSet
        if let fresh = freshSet() { keys = fresh } else { keys = try await keySet() }
        guard let kid = jws.header.keyID, !keys.contains(keyID: kid) else { return keys }
        // Unknown kid: the issuer may have rotated. Refetch, but not more than once per interval.
        let time = now()
        let mayRefetch = state.withLock { state in
            guard time.timeIntervalSince(state.lastUnknownKIDRefetch) >= options.refetchInterval else { return false }
            state.lastUnknownKIDRefetch = time
            return true
        }
        guard mayRefetch else { return keys }
        do {
            return try await refresh()
        } catch {
            return keys
        }
    }

    /// Joins the fetch under way or starts one; the state is updated once, by whoever
    /// finishes first with the task that is still current.
    private func refresh() async throws -> JWKSet {
        let fetcher = self.fetcher
        let options = self.options
        let (id, task) = state.withLock { state in
            if let inFlight = state.inFlight { return inFlight }
            state.nextFetchID &+= 1
            let task = Task<FetchedSet, any Error> {
                let response = try await fetcher()
                return FetchedSet(set: try JWKSet(json: response.body), ttl: Self.ttl(from: response.cacheControl, options: options))
            }
            state.inFlight = (state.nextFetchID, task)
            state.fetchCount += 1
            return (state.nextFetchID, task)
        }
        let result = await task.result
        let time = now()
        state.withLock { state in
            guard let inFlight = state.inFlight, inFlight.id == id else { return }
            state.inFlight = nil
            switch result {
            case .success(let fetched):
                state.lastFailure = nil
                state.current = fetched.set
                state.freshUntil = time.addingTimeInterval(fetched.ttl)
            case .failure(let error):
                state.lastFailure = (time, error)
            }
        }
        return try result.get().set
    }

    static func ttl(from cacheControl: String?, options: Options) -> TimeInterval {
        guard let cacheControl else { return options.defaultTTL }
        var ttl: TimeInterval?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimming(while: \.isWhitespace).lowercased() }
            // A directive of only "=" splits into nothing; the header is server input, so skip it.
            guard let name = parts.first else { continue }
            switch name {
            case "no-store", "no-cache": return options.minimumTTL
            case "max-age" where parts.count == 2:
                if let seconds = TimeInterval(parts[1].trimming(while: { $0 == "\"" })), seconds >= 0 { ttl = seconds }
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
