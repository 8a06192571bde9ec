public import LatchkeyJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON Web Token: a compact JWS whose payload is a JSON object of claims.
public struct JWT: Sendable {
    /// The protected header.
    public var header: JWSHeader { jws.header }
    /// The claims.
    public let claims: JWTClaims
    /// The signature bytes.
    public var signature: [UInt8] { jws.signature }
    /// The parsed token, which keeps the text the signature and payload are read from.
    let jws: CompactJWS

    /// Parses a token and decodes its payload, once (so checking it is base64url is not a
    /// second pass); its claims are read only when the caller says.
    static func parse(_ token: String, options: JWSOptions) throws(JWTError) -> (CompactJWS, ClaimsPayload) {
        var payload: ClaimsPayload?
        let jws = try CompactJWS(text: token, options: options, decodingPayload: true, payload: &payload)
        // Decoding either sets the payload or throws; the empty one is never built.
        return (jws, payload ?? .empty())
    }

    init(jws: CompactJWS, payload: ClaimsPayload) throws(JWTError) {
        claims = try JWTClaims(payload: payload)
        self.jws = jws
    }

    /// Decodes a token **without verifying** its signature or claims: for inspection
    /// only. The parsing is as strict as verification's.
    public static func decode(_ token: String, options: JWSOptions = JWSOptions()) throws -> JWT {
        let (jws, payload) = try parse(token, options: options)
        return try JWT(jws: jws, payload: payload)
    }

    /// Decodes a token given as any string (a `Substring` of a header, say), as the
    /// `String` overload does.
    public static func decode(_ token: some StringProtocol, options: JWSOptions = JWSOptions()) throws -> JWT {
        try decode(String(token), options: options)
    }

    /// Verifies the signature with `keys`, then the claims against `options`.
    /// The signature is checked before the claims are parsed: a tampered payload is a
    /// bad signature, not a malformed token.
    public static func verify(_ token: String, keys: some JWTKeySource, options: JWTValidationOptions = JWTValidationOptions()) throws -> JWT {
        let (jws, payload) = try parse(token, options: options.jws)
        try jws.verify(with: keys, options: options.jws)
        return try validated(jws, payload: payload, options: options)
    }

    /// Verifies a token given as any string, as the `String` overload does.
    public static func verify(
        _ token: some StringProtocol, keys: some JWTKeySource, options: JWTValidationOptions = JWTValidationOptions()
    ) throws -> JWT {
        try verify(String(token), keys: keys, options: options)
    }

    /// Verifies the signature with `key`, then the claims: the same as with any key
    /// source, without building a list of candidates.
    public static func verify(_ token: String, keys key: JWTKey, options: JWTValidationOptions = JWTValidationOptions()) throws -> JWT {
        let (jws, payload) = try parse(token, options: options.jws)
        try jws.verify(with: key, options: options.jws)
        return try validated(jws, payload: payload, options: options)
    }

    /// Verifies a token given as any string with `key`, as the `String` overload does.
    public static func verify(_ token: some StringProtocol, keys key: JWTKey, options: JWTValidationOptions = JWTValidationOptions()) throws -> JWT {
        try verify(String(token), keys: key, options: options)
    }

    /// Verifies a parsed token's signature, then its claims: the path every JWT
    /// verification through a key source (direct or through a `JWKSCache`) takes.
    static func verified(
        _ jws: consuming CompactJWS, payload: consuming ClaimsPayload, keys: some JWTKeySource, options: JWTValidationOptions
    ) throws -> JWT {
        try jws.verify(with: keys, options: options.jws)
        return try validated(jws, payload: payload, options: options)
    }

    /// The claims of a token whose signature verified, checked against `options`.
    private static func validated(_ jws: consuming CompactJWS, payload: consuming ClaimsPayload, options: JWTValidationOptions) throws -> JWT {
        let jwt = try JWT(jws: jws, payload: payload)
        try jwt.claims.validate(options)
        return jwt
    }

    /// Signs `claims` with `key` (and its pinned or first algorithm unless `algorithm`
    /// is given). The header gets `alg`, `typ: "JWT"`, the key's `kid`, and `extraHeader`.
    public static func sign(_ claims: JSONObject, key: JWTKey, algorithm: JWSAlgorithm? = nil, extraHeader: JSONObject = [:]) throws -> String {
        try JWS.sign(payload: JSONValue.object(claims).jsonBytes, key: key, algorithm: algorithm, extraHeader: jwtHeader(extraHeader))
    }

    /// Signs any `Encodable` claims set (dates as seconds since 1970).
    public static func sign(
        encoding claims: some Encodable, key: JWTKey, algorithm: JWSAlgorithm? = nil, extraHeader: JSONObject = [:]
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let payload = try encoder.encode(claims)
        return try JWS.sign(payload: Array(payload), key: key, algorithm: algorithm, extraHeader: jwtHeader(extraHeader))
    }

    /// `extraHeader` with `typ: "JWT"` unless the caller set a type.
    private static func jwtHeader(_ extraHeader: JSONObject) -> JSONObject {
        var header = extraHeader
        if header["typ"] == nil { header["typ"] = "JWT" }
        return header
    }
}

/// JWS over any payload bytes.
public enum JWS {
    /// Verifies a compact JWS's signature only; the payload may be anything.
    public static func verify(_ token: some StringProtocol, keys: some JWTKeySource, options: JWSOptions = JWSOptions()) throws -> CompactJWS {
        let jws = try CompactJWS(token, options: options)
        try jws.verify(with: keys, options: options)
        return jws
    }

    /// Verifies a compact JWS's signature with `key` only; the payload may be anything.
    public static func verify(_ token: some StringProtocol, keys key: JWTKey, options: JWSOptions = JWSOptions()) throws -> CompactJWS {
        let jws = try CompactJWS(token, options: options)
        try jws.verify(with: key, options: options)
        return jws
    }

    /// Signs `payload`, producing a compact JWS. The header is `{"alg", "kid"?}` followed
    /// by `extraHeader`'s members.
    public static func sign(payload: [UInt8], key: JWTKey, algorithm: JWSAlgorithm? = nil, extraHeader: JSONObject = [:]) throws -> String {
        let algorithm = algorithm ?? key.signingAlgorithm
        var header: JSONObject = ["alg": .string(algorithm.rawValue)]
        if let kid = key.keyID, extraHeader["kid"] == nil { header["kid"] = .string(kid) }
        for member in extraHeader where !sameCodeUnits(member.name, "alg") { header[member.name] = member.value }
        let signingInput = Base64URL.encode(JSONValue.object(header).jsonBytes) + "." + Base64URL.encode(payload)
        if algorithm == .none { return signingInput + "." }
        let signature = try key.sign(algorithm, signingInput: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
