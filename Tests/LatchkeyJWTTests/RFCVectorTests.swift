import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// The signed examples of RFC 7515 Appendix A and RFC 7520 §4, byte-exact, verified
/// by the library. The tokens and keys live in `Vectors/rfc7515.json` and `Vectors/rfc7520.json`.
@Suite struct RFCVectorTests {
    static let signed = [
        "rfc7515-A.1", "rfc7515-A.2", "rfc7515-A.3", "rfc7515-A.4",
        "rfc7520-4.1", "rfc7520-4.2", "rfc7520-4.3", "rfc7520-4.4",
    ]

    /// A moment in 2011 before the RFC 7515 claims expire.
    static let before2011Expiry = fixedClock(rfcExpiry - 3600)

    @Test func allVectorsArePresent() {
        #expect(Set(Vectors.rfc.keys) == Set(Self.signed + ["rfc7515-A.5"]))
    }

    @Test(arguments: signed)
    func vectorVerifiesWithItsJWK(name: String) throws {
        let vector = try Vectors.rfc(name)
        let key = try vector.key()
        let jws = try JWS.verify(vector.token, keys: key)
        #expect(jws.header.algorithmName == vector.alg)
        #expect(String(decoding: jws.payload, as: UTF8.self) == vector.payload)
        // The public half alone verifies too.
        let verifiedBy = try CompactJWS(vector.token).verify(with: key.publicKey)
        #expect(verifiedBy != nil)
    }

    @Test(arguments: signed)
    func vectorVerifiesFromAKeySet(name: String) throws {
        let vector = try Vectors.rfc(name)
        let jwk = try #require(vector.jwk?.objectValue)
        let set = try JWKSet(json: JSONValue.object(["keys": .array([.object(jwk)])]).jsonText)
        #expect(set.keys.count == 1)
        let header = try CompactJWS(vector.token).header
        if header.keyID != nil || jwk["alg"] != nil {
            _ = try JWS.verify(vector.token, keys: set)
        } else {
            // No kid in the token and no alg in the JWK: a set never guesses.
            expectJWTError(.keyNotFound) { try JWS.verify(vector.token, keys: set) }
        }
    }

    @Test(arguments: signed)
    func tamperedVectorIsRefused(name: String) throws {
        let vector = try Vectors.rfc(name)
        var parts = TokenParts(vector.token)
        parts.signature[parts.signature.count / 2] ^= 0x01
        expectJWTError(.signatureInvalid) { try JWS.verify(parts.token, keys: try vector.key()) }
        parts = TokenParts(vector.token)
        parts.payload[0] ^= 0x20
        expectJWTError(.signatureInvalid) { try JWS.verify(parts.token, keys: try vector.key()) }
    }

    @Test(arguments: ["rfc7515-A.1", "rfc7515-A.2", "rfc7515-A.3"])
    func rfc7515ClaimsValidateWithA2011Clock(name: String) throws {
        let vector = try Vectors.rfc(name)
        let key = try vector.key()
        let jwt = try JWT.verify(vector.token, keys: key, options: JWTValidationOptions(issuer: "joe", now: Self.before2011Expiry))
        #expect(jwt.claims.issuer == "joe")
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: rfcExpiry))
        #expect(jwt.claims["http://example.com/is_root"] == .bool(true))
        // With today's clock the signature is still good but the token expired in 2011.
        let error = expectJWTError(.expired) { try JWT.verify(vector.token, keys: key) }
        #expect(error?.message.contains("expired at 2011-03-22T18:43:00Z") == true)
    }

    @Test func rfc7515A4PayloadIsNotJSON() throws {
        let vector = try Vectors.rfc("rfc7515-A.4")
        let jws = try JWS.verify(vector.token, keys: try vector.key())
        #expect(jws.payload == Array("Payload".utf8))
        // The JWS API accepts any payload; the JWT API insists on a claims object.
        expectJWTError(.malformed) { try JWT.verify(vector.token, keys: try vector.key()) }
    }

    @Test func rfc7515A5UnsecuredIsRefusedByDefault() throws {
        let vector = try Vectors.rfc("rfc7515-A.5")
        let anyKey = try TestKeys.pair(.hs256)
        expectJWTError(.unsecuredNotAllowed) { try JWS.verify(vector.token, keys: anyKey) }
        expectJWTError(.unsecuredNotAllowed) {
            try JWT.verify(vector.token, keys: anyKey, options: JWTValidationOptions(now: Self.before2011Expiry))
        }
        expectJWTError(.unsecuredNotAllowed) { try CompactJWS(vector.token).verify(with: anyKey) }
        // Other options do not imply consent.
        let others = JWSOptions(understoodCriticalHeaders: ["none"], allowedAlgorithms: Set(JWSAlgorithm.allCases))
        expectJWTError(.unsecuredNotAllowed) { try JWS.verify(vector.token, keys: anyKey, options: others) }
    }

    @Test func rfc7515A5UnsecuredIsAcceptedOnlyWithExplicitConsent() throws {
        let vector = try Vectors.rfc("rfc7515-A.5")
        let anyKey = try TestKeys.pair(.hs256)
        let consent = JWSOptions(allowsUnsecured: true)
        let jws = try CompactJWS(vector.token, options: consent)
        #expect(jws.header.algorithm == JWSAlgorithm.none)
        #expect(jws.signature.isEmpty)
        #expect(try jws.verify(with: anyKey, options: consent) == nil)
        let jwt = try JWT.verify(vector.token, keys: anyKey, options: JWTValidationOptions(jws: consent, now: Self.before2011Expiry))
        #expect(jwt.claims.issuer == "joe")
        // An unsecured token that carries a signature is malformed even with consent.
        let withSignature = vector.token + "c2ln"
        expectJWTError(.malformed) { try JWS.verify(withSignature, keys: anyKey, options: consent) }
    }

    /// RSASSA-PKCS1-v1_5 and HMAC are deterministic, so signing the same input with the
    /// RFC's key must reproduce the RFC's token exactly.
    @Test func deterministicVectorsAreReproducedBySigning() throws {
        let a2 = try Vectors.rfc("rfc7515-A.2")
        let a2Payload = Array(a2.payload.utf8)
        #expect(try JWS.sign(payload: a2Payload, key: a2.key(), algorithm: .rs256) == a2.token)

        for name in ["rfc7520-4.1", "rfc7520-4.4"] {
            let vector = try Vectors.rfc(name)
            let key = try vector.key()
            let algorithm = try #require(JWSAlgorithm(rawValue: vector.alg))
            #expect(try JWS.sign(payload: Array(vector.payload.utf8), key: key, algorithm: algorithm) == vector.token, "\(name)")
        }
    }

    @Test(arguments: ["rfc7515-A.3", "rfc7515-A.4", "rfc7520-4.2", "rfc7520-4.3"])
    func randomizedVectorKeysSignAndVerify(name: String) throws {
        let vector = try Vectors.rfc(name)
        let key = try vector.key()
        let algorithm = try #require(JWSAlgorithm(rawValue: vector.alg))
        let token = try JWS.sign(payload: Array(vector.payload.utf8), key: key, algorithm: algorithm)
        #expect(token != vector.token)
        let jws = try JWS.verify(token, keys: key.publicKey)
        #expect(String(decoding: jws.payload, as: UTF8.self) == vector.payload)
    }

    @Test(arguments: Vectors.interop)
    func tokensSignedByAnotherImplementationVerify(vector: InteropVector) throws {
        let key = try JWTKey(pem: Vectors.text(vector.publicKeyFile))
        let jwt = try JWT.verify(vector.token, keys: key)
        #expect(jwt.header.algorithmName == vector.alg)
        #expect(jwt.claims.issuer == "pyca")
        #expect(jwt.claims.subject == "interop")
        var parts = TokenParts(vector.token)
        parts.signature[0] ^= 0x80
        expectJWTError(.signatureInvalid) { try JWT.verify(parts.token, keys: key) }
    }

    @Test func interopVectorsArePresent() {
        #expect(Vectors.interop.map(\.alg).sorted() == ["ES256", "EdDSA", "PS256", "RS256"])
    }
}
