internal import Foundation
internal import Latchkey
internal import LatchkeyCrypto
internal import LatchkeyJSON
internal import LatchkeyJWT

/// The P-256 key pair that proves possession of DPoP-bound tokens (RFC 9449), with its
/// public JWK and thumbprint (`jkt`) worked out once. Its description never shows the key.
struct DPoPKey: Sendable, CustomStringConvertible {
    /// The private key; signs ES256 only.
    let key: JWTKey
    /// `{kty, crv, x, y}`: the proof header's `jwk`.
    let publicJWK: JSONObject
    /// The JWK SHA-256 thumbprint (RFC 7638), the `cnf.jkt` Auth0 binds tokens to.
    let thumbprint: String

    /// Wraps a key; refuses anything but an EC P-256 key with its private half.
    init(_ key: JWTKey) throws {
        let jwk = key.jwk()
        guard key.canSign, jwk.keyType == "EC", jwk.curve == "P-256", key.allowedAlgorithms.contains(.es256) else {
            throw AuthError(.invalidArgument, "a DPoP key must be an EC P-256 private key")
        }
        var members = JSONObject()
        for name in ["kty", "crv", "x", "y"] { members[name] = jwk.object[name] }
        self.key = key
        publicJWK = members
        thumbprint = try jwk.thumbprint()
    }

    /// A new key pair.
    static func generate() throws -> DPoPKey {
        try DPoPKey(JWTKey.generate(for: .es256))
    }

    /// Reads the stored form (PKCS#8 PEM).
    init(stored bytes: [UInt8]) throws {
        try self.init(JWTKey(pem: String(decoding: bytes, as: UTF8.self), algorithm: .es256))
    }

    /// The stored form: PKCS#8 PEM. A secret.
    func stored() throws -> [UInt8] {
        guard let pem = try key.pem(includingPrivate: true) else { throw AuthError(.invalidState, "the DPoP key has no PEM form") }
        return Array(pem.utf8)
    }

    /// A proof for one request (RFC 9449 §4.2): header `{typ: dpop+jwt, alg: ES256, jwk}`,
    /// claims `jti` (random, so never replayed), `htm`, `htu` (the URL without query or
    /// fragment), `iat` (the client's clock), `ath` (base64url SHA-256 of the access token,
    /// on requests that carry one) and `nonce` (when the server gave one).
    func proof(method: String, url: URL, accessToken: String?, nonce: String?, now: Date) throws -> String {
        var claims: JSONObject = [
            "jti": .string(Base64URL.encode(try SecureRandom.bytes(16))),
            "htm": .string(method.uppercased()),
            "htu": .string(Self.target(of: url)),
            // Whole seconds from a clock that may be anywhere: clamped, never trapped on.
            "iat": .number(min(max(now.timeIntervalSince1970, 0), 1e12).rounded(.down)),
        ]
        if let accessToken { claims["ath"] = .string(Self.accessTokenHash(accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        return try JWT.sign(claims, key: key, algorithm: .es256, extraHeader: ["typ": "dpop+jwt", "jwk": .object(publicJWK)])
    }

    /// `htu`: the request's URL without query, fragment or user information.
    static func target(of url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    /// `ath`: base64url(SHA-256(access token)).
    static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(accessToken.utf8)))
    }

    var description: String { "DPoPKey(EC P-256, jkt: \(thumbprint), redacted)" }
}
