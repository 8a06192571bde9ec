public import Foundation
public import LatchkeyJWT

extension JWKSCache {
    /// A cache that fetches the key set at `url` through `transport` (the core's
    /// transport: retries, timeouts, and the test's emulator all apply), timed by `clock`.
    ///
    /// A non-200 answer or a transport failure is a failed fetch: the cache keeps
    /// serving its last good set and backs off (see `JWKSCache.Options`).
    ///
    /// - Parameters:
    ///   - url: an `https` URL, or `http` to a loopback address (the emulator).
    ///   - transport: the transport to fetch with, e.g. the client's ``AuthClient/transport``.
    ///   - clock: the cache's time (its max-age, its refetch interval).
    ///   - options: the cache's intervals and limits.
    /// - Throws: ``AuthError/Code/configuration`` for any other URL.
    public static func fetching(from url: URL, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
                                options: Options = Options()) throws(AuthError) -> JWKSCache {
        try SecureURL.check(url, what: "the JWKS URL")
        return JWKSCache(options: options, now: { clock.now }) {
            let response = try await transport.send(HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
            guard response.status == 200 else {
                throw AuthError(response.status == 429 ? .rateLimited : .transient,
                                "the JWKS at \(SecureURL.redacted(url)) answered HTTP \(response.status)", httpStatus: response.status)
            }
            return Response(body: Array(response.body), cacheControl: response.headers["Cache-Control"])
        }
    }
}
