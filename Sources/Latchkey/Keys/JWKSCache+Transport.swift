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

/// The rule for every URL Latchkey sends credentials or trusts keys from: TLS, except
/// to a loopback address (the emulator, a loopback redirect).
public enum SecureURL {
    /// Checks `url`.
    ///
    /// - Throws: ``AuthError/Code/configuration`` naming `what` for a URL that is not
    ///   https and not http to 127.0.0.0/8, ::1 or `localhost`.
    public static func check(_ url: URL, what: String) throws(AuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw AuthError(.configuration, "\(what) is not an absolute URL")
        }
        if scheme == "https" { return }
        guard scheme == "http", isLoopback(host) else {
            throw AuthError(.configuration, "\(what) must use https (plain http is allowed only to a loopback address); got \(redacted(url))")
        }
    }

    /// Whether `host` is a loopback address: 127.0.0.0/8 as a dotted quad, `::1`, or
    /// `localhost`. Parsed, not prefix-matched: `127.example.com` is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part), value <= 255 else { return false }
            octets.append(value)
        }
        return octets[0] == 127
    }

    /// The URL without its query and user info, for messages.
    public static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        components?.fragment = nil
        return components?.string ?? "<url>"
    }
}
