public import Foundation
public import Latchkey
public import LatchkeyJWT

extension BearerTokenVerifier {
    /// Verifies Auth0 access tokens for one API: RS256 only (an API's tokens are signed
    /// with the tenant's RSA keys; HS256 and `none` are refused whatever the header
    /// says), keys from `/.well-known/jwks.json`, `iss` = `https://{domain}/`, `aud` ∋
    /// `audience` (the API identifier), `exp`/`iat` within `leeway`. Scopes come from
    /// `scope` and, with RBAC, `permissions` (see ``VerifiedToken/scopes``).
    ///
    /// - Parameters:
    ///   - domain: the tenant's domain (`tenant.eu.auth0.com`) or custom domain; the
    ///     issuer is always `https://{domain}/`, whatever URL the keys come from.
    ///   - audience: the API identifier.
    ///   - baseURL: where the JWKS is fetched; default `https://{domain}/` (an
    ///     emulator's root in tests).
    /// - Throws: ``AuthError/Code/configuration`` for an empty domain or audience, or a
    ///   base URL that is not https (or http to loopback).
    public static func auth0(
        domain: String, audience: String, baseURL: URL? = nil, leeway: TimeInterval = 60,
        transport: any HTTPTransport = DefaultTransport.make(), clock: any SessionClock = SystemClock(),
        cacheOptions: JWKSCache.Options = JWKSCache.Options()
    ) throws(AuthError) -> BearerTokenVerifier {
        guard !domain.isEmpty, !domain.contains("/"), !domain.contains(" ") else {
            throw AuthError(.configuration, "an Auth0 verifier needs the tenant's domain, such as tenant.eu.auth0.com (no scheme, no path)")
        }
        guard !audience.isEmpty else { throw AuthError(.configuration, "an Auth0 verifier needs the API identifier (the audience)") }
        guard let root = baseURL ?? URL(string: "https://\(domain)/") else { throw AuthError(.configuration, "the Auth0 domain does not form a URL") }
        let keys = try JWKSCache.fetching(
            from: root.appending(path: ".well-known/jwks.json"), transport: transport, clock: clock, options: cacheOptions)
        let options = JWTValidationOptions(
            issuer: "https://\(domain)/", audience: audience, requiredClaims: ["sub", "exp"], leeway: leeway,
            jws: JWSOptions(allowedAlgorithms: [.rs256]), now: { clock.now })
        return BearerTokenVerifier(keys: keys, options: options)
    }
}
