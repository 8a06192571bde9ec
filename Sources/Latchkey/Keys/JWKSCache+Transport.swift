public import Foundation
public import LatchkeyJWT

extension JWKSCache {
    /// A cache that fetches the key set at `url` through `transport` (the core's
    /// transport: retries, timeouts, the answer cap, no redirects, and the test's
    /// emulator all apply), timed by `clock`. The one way a key set is fetched over
    /// HTTP: adapters pass their own `classify` rather than writing a fetcher.
    ///
    /// A non-200 answer or a transport failure is a failed fetch: the cache keeps
    /// serving its last good set and backs off (see `JWKSCache.Options`).
    ///
    /// - Parameters:
    ///   - url: an `https` URL, or `http` to a loopback address (the emulator).
    ///   - transport: the transport to fetch with, e.g. the client's ``AuthClient/transport``.
    ///   - clock: the cache's time (its max-age, its refetch interval).
    ///   - options: the cache's intervals and limits.
    ///   - timeout: how long one fetch may take; `nil` for the transport's default.
    ///   - classify: turns a non-200 answer into the error the fetch throws (an adapter
    ///     maps it as its provider's other answers); `nil` for a rate limit on 429 and a
    ///     transient failure otherwise.
    /// - Throws: ``AuthError/Code/configuration`` for any other URL.
    public static func fetching(
        from url: URL, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        options: Options = Options(), timeout: Duration? = nil,
        classify: (@Sendable (TransportResponse) -> AuthError)? = nil
    ) throws(AuthError) -> JWKSCache {
        try SecureURL.check(url, what: "the JWKS URL")
        return JWKSCache(options: options, now: { clock.now }) {
            let response = try await transport.send(
                TransportRequest(
                    method: "GET", url: url, headers: ["Accept": "application/json"],
                    timeout: timeout, operation: "jwks"))
            guard response.status == 200 else {
                if let classify { throw classify(response) }
                throw AuthError(
                    response.status == 429 ? .rateLimited : .transient,
                    "the JWKS at \(SecureURL.redacted(url)) answered HTTP \(response.status)", httpStatus: response.status)
            }
            return Response(body: Array(response.body), cacheControl: response.headers["Cache-Control"])
        }
    }

    /// ``fetching(from:transport:clock:options:timeout:classify:)`` for an adapter whose
    /// initializer cannot throw: a URL that breaks the TLS rule gives a cache whose every
    /// fetch fails with that ``AuthError/Code/configuration`` error, so nothing is ever
    /// fetched from it and verification says why.
    public static func fetchingOrRefusing(
        from url: URL, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        options: Options = Options(), timeout: Duration? = nil,
        classify: (@Sendable (TransportResponse) -> AuthError)? = nil
    ) -> JWKSCache {
        do {
            return try fetching(from: url, transport: transport, clock: clock, options: options, timeout: timeout, classify: classify)
        } catch {
            return JWKSCache(options: options, now: { clock.now }) { throw error }
        }
    }
}
