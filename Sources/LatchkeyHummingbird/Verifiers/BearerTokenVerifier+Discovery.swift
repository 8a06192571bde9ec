public import Foundation
public import Latchkey
import LatchkeyJSON
public import LatchkeyJWT

extension BearerTokenVerifier {
    /// Verifies the access tokens of any OpenID Connect issuer, found from its discovery
    /// document (OpenID Connect Discovery 1.0 §4): `GET {issuer}/.well-known/openid-configuration`,
    /// whose `issuer` must equal `issuer` exactly (§4.3: a document naming another issuer
    /// is refused), then the keys from its `jwks_uri` (https, or http to loopback:
    /// ``SecureURL``). Tokens must carry `iss` = `issuer` and `aud` ∋ `audience`.
    ///
    /// - Parameters:
    ///   - discoveryURL: where the document is, when not under `issuer` (an emulator or a
    ///     proxy that serves the tenant at another address).
    ///   - algorithms: the algorithms accepted; `nil` lets each key decide (an RSA key
    ///     never verifies HS256 or `none`).
    /// - Throws: ``AuthError/Code/configuration`` for a URL that is not https (or http to
    ///   loopback), a document that names another issuer or no usable `jwks_uri`;
    ///   ``AuthError/Code/transient`` when the document cannot be fetched (try again).
    public static func discovering(
        issuer: String, audience: String, discoveryURL: URL? = nil, algorithms: Set<JWSAlgorithm>? = nil,
        leeway: TimeInterval = 60, transport: any HTTPTransport = DefaultTransport.make(),
        clock: any SessionClock = SystemClock(),
        cacheOptions: JWKSCache.Options = JWKSCache.Options()
    ) async throws(AuthError) -> BearerTokenVerifier {
        guard !audience.isEmpty else { throw AuthError(.configuration, "an OIDC verifier needs the audience its tokens are made for") }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = discoveryURL ?? URL(string: base + "/.well-known/openid-configuration") else {
            throw AuthError(.configuration, "the issuer does not form a discovery URL")
        }
        try SecureURL.check(url, what: "the OpenID discovery URL")
        let response: TransportResponse
        do {
            response = try await transport.send(TransportRequest(url: url, headers: ["Accept": "application/json"], maximumResponseSize: 1 << 20))
        } catch {
            throw AuthError(.transient, "the OpenID discovery document at \(SecureURL.redacted(url)) could not be fetched", underlying: error)
        }
        guard response.status == 200 else {
            throw AuthError(
                response.status == 429 ? .rateLimited : .transient,
                "the OpenID discovery document at \(SecureURL.redacted(url)) answered HTTP \(response.status)", httpStatus: response.status)
        }
        guard let document = (try? JSONValue.parse(bytes: Array(response.body)))?.objectValue else {
            throw AuthError(.transient, "the OpenID discovery document at \(SecureURL.redacted(url)) is not a JSON object")
        }
        guard let named = document["issuer"]?.stringValue, named.utf8.elementsEqual(issuer.utf8) else {
            throw AuthError(.configuration, "the OpenID discovery document at \(SecureURL.redacted(url)) is not for the issuer \(issuer)")
        }
        guard let jwks = document["jwks_uri"]?.stringValue.flatMap(URL.init(string:)) else {
            throw AuthError(.configuration, "the OpenID discovery document at \(SecureURL.redacted(url)) has no jwks_uri")
        }
        let keys = try JWKSCache.fetching(from: jwks, transport: transport, clock: clock, options: cacheOptions)
        let options = JWTValidationOptions(
            issuer: issuer, audience: audience, requiredClaims: ["exp"], leeway: leeway,
            jws: JWSOptions(allowedAlgorithms: algorithms), now: { clock.now })
        return BearerTokenVerifier(keys: keys, options: options)
    }
}
