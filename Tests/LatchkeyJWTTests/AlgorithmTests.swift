import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Every signing algorithm: round trips, tampering, and algorithm confusion.
@Suite struct AlgorithmTests {
    static let claims: JSONObject = ["iss": "latchkey", "sub": "alice", "typ-check": "JWT", "n": 42]

    static func signed(_ algorithm: JWSAlgorithm) throws -> (token: String, key: JWTKey) {
        let key = try TestKeys.pair(algorithm)
        return (try JWT.sign(claims, key: key, algorithm: algorithm), key)
    }

    /// The key that verifies: the public half for asymmetric keys, the secret for HMAC.
    static func verifier(_ key: JWTKey) -> JWTKey { key.publicKey }

    @Test(arguments: JWSAlgorithm.signing)
    func signThenVerify(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        let jwt = try JWT.verify(token, keys: Self.verifier(key))
        #expect(jwt.header.algorithm == algorithm)
        #expect(jwt.header.type == "JWT")
        #expect(jwt.header.keyID == "test-\(algorithm.rawValue)")
        #expect(jwt.claims.subject == "alice")
        #expect(jwt.claims["n"] == 42)
        let verifiedBy = try CompactJWS(token).verify(with: Self.verifier(key))
        #expect(verifiedBy?.keyID == key.keyID)
        // Arbitrary payload bytes through the JWS API.
        let bytes: [UInt8] = [0, 1, 2, 0xFF, 0xFE, 0x80]
        let jws = try JWS.verify(JWS.sign(payload: bytes, key: key, algorithm: algorithm), keys: Self.verifier(key))
        #expect(jws.payload == bytes)
    }

    @Test(arguments: JWSAlgorithm.signing)
    func everyFlippedSignatureBitIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        let parts = TokenParts(token)
        for index in parts.signature.indices {
            var tampered = parts
            tampered.signature[index] ^= 1 << UInt8(index % 8)
            expectJWTError(.signatureInvalid, "signature byte \(index)") { try JWT.verify(tampered.token, keys: Self.verifier(key)) }
        }
    }

    @Test(arguments: JWSAlgorithm.signing)
    func everyFlippedPayloadBitIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        let parts = TokenParts(token)
        for index in parts.payload.indices {
            var tampered = parts
            tampered.payload[index] ^= 1 << UInt8(index % 8)
            // The signature is checked before the payload is parsed, so even a payload
            // that is no longer JSON is a bad signature, not a parse error.
            expectJWTError(.signatureInvalid, "payload byte \(index)") { try JWT.verify(tampered.token, keys: Self.verifier(key)) }
        }
    }

    @Test(arguments: JWSAlgorithm.signing)
    func everyFlippedHeaderBitIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        let parts = TokenParts(token)
        for index in parts.header.indices {
            for bit in [0, 5] as [UInt8] {
                var tampered = parts
                tampered.header[index] ^= 1 << bit
                // Depending on the byte, the header stops being JSON (malformed), names
                // another or an unknown algorithm, or stays valid with a bad signature.
                expectJWTError(
                    oneOf: [.malformed, .signatureInvalid, .unsupportedAlgorithm, .algorithmMismatch, .keyNotFound],
                    "header byte \(index) bit \(bit)"
                ) { try JWT.verify(tampered.token, keys: Self.verifier(key)) }
            }
        }
        // Two flips whose outcome is certain: a letter of the "typ" value keeps the
        // header valid JSON, so only the signature can catch it...
        var typ = parts
        typ.headerText = typ.headerText.replacingOccurrences(of: "\"JWT\"", with: "\"KWT\"")
        #expect(typ.header.count == parts.header.count)
        expectJWTError(.signatureInvalid) { try JWT.verify(typ.token, keys: Self.verifier(key)) }
        // ...and the opening brace turned into 'z' is no longer JSON.
        var brace = parts
        brace.header[0] ^= 0x01
        let error = expectJWTError(.malformed) { try JWT.verify(brace.token, keys: Self.verifier(key)) }
        #expect(error?.message.contains("segment 1") == true)
    }

    @Test(arguments: JWSAlgorithm.signing)
    func degenerateSignaturesAreRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        let parts = TokenParts(token)
        let length = parts.signature.count
        let candidates: [(String, [UInt8])] = [
            ("empty", []),
            // r = s = 0: the "psychic signature" that once verified in Java (CVE-2022-21449).
            ("zeros", [UInt8](repeating: 0, count: length)),
            ("ones", [UInt8](repeating: 0xFF, count: length)),
            ("one byte short", Array(parts.signature.dropLast())),
            ("one byte long", parts.signature + [0]),
            ("leading zero added", [0] + parts.signature),
            ("doubled", parts.signature + parts.signature),
            ("other token's", try TokenParts(JWT.sign(["sub": "someone else"], key: TestKeys.pair(algorithm))).signature),
        ]
        for (name, signature) in candidates {
            var tampered = parts
            tampered.signature = signature
            expectJWTError(.signatureInvalid, "\(name)") { try JWT.verify(tampered.token, keys: Self.verifier(key)) }
        }
        if algorithm.rawValue.hasPrefix("ES") {
            // ECDSA with r = 0 or s = 0 alone, and with r, s = the group order's neighbourhood.
            let half = length / 2
            var rZero = parts.signature
            for index in 0..<half { rZero[index] = 0 }
            var sZero = parts.signature
            for index in half..<length { sZero[index] = 0 }
            for signature in [rZero, sZero] {
                var tampered = parts
                tampered.signature = signature
                expectJWTError(.signatureInvalid) { try JWT.verify(tampered.token, keys: Self.verifier(key)) }
            }
        }
    }

    /// RFC 8017 §8.2.2 step 1: an RSA signature must be exactly k octets. A signature
    /// whose leading zero octet was dropped is a second encoding of the same value.
    @Test(arguments: [JWSAlgorithm.rs256, .rs512])
    func rsaSignaturesMustHaveTheModulusLength(algorithm: JWSAlgorithm) throws {
        let key = try TestKeys.pair(algorithm)
        var found: (token: String, parts: TokenParts)?
        for attempt in 0..<4_000 where found == nil {
            let token = try JWT.sign(["n": .number(Double(attempt))], key: key)
            let parts = TokenParts(token)
            if parts.signature.first == 0 { found = (token, parts) }
        }
        let (token, parts) = try #require(found, "a signature with a leading zero octet within 4,000 tries")
        #expect(parts.signature.count == 256)
        _ = try JWT.verify(token, keys: key.publicKey)
        var stripped = parts
        stripped.signature.removeFirst()
        expectJWTError(.signatureInvalid) { try JWT.verify(stripped.token, keys: key.publicKey) }
    }

    @Test(arguments: JWSAlgorithm.signing)
    func headerAlgSwappedToAnyOtherAlgorithmIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        for other in JWSAlgorithm.signing where other != algorithm {
            var parts = TokenParts(token)
            parts.headerText = parts.headerText.replacingOccurrences(of: "\"alg\":\"\(algorithm.rawValue)\"", with: "\"alg\":\"\(other.rawValue)\"")
            #expect(parts.headerText.contains(other.rawValue))
            // The generated key is pinned to its algorithm, so any other alg is a mismatch.
            expectJWTError(.algorithmMismatch, "\(algorithm.rawValue) → \(other.rawValue)") {
                try JWT.verify(parts.token, keys: Self.verifier(key))
            }
        }
    }

    @Test(arguments: JWSAlgorithm.signing)
    func headerAlgSwappedToNoneIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.signed(algorithm)
        var parts = TokenParts(token)
        parts.headerText = parts.headerText.replacingOccurrences(of: "\"alg\":\"\(algorithm.rawValue)\"", with: "\"alg\":\"none\"")
        expectJWTError(.unsecuredNotAllowed) { try JWT.verify(parts.token, keys: Self.verifier(key)) }
        // Even with consent, a "none" token that still carries the old signature is malformed.
        expectJWTError(.malformed) {
            try JWT.verify(parts.token, keys: Self.verifier(key), options: JWTValidationOptions(jws: JWSOptions(allowsUnsecured: true)))
        }
        // And with the signature stripped it is refused without consent.
        parts.signature = []
        expectJWTError(.unsecuredNotAllowed) { try JWT.verify(parts.token, keys: Self.verifier(key)) }
        // Case variants are not "none": they are unknown algorithms.
        for variant in ["None", "NONE", "nOnE"] {
            var cased = TokenParts(token)
            cased.headerText = cased.headerText.replacingOccurrences(of: "\"alg\":\"\(algorithm.rawValue)\"", with: "\"alg\":\"\(variant)\"")
            cased.signature = []
            expectJWTError(.unsupportedAlgorithm, "\(variant)") { try JWT.verify(cased.token, keys: Self.verifier(key)) }
        }
    }

    @Test func unpinnedKeysStillCatchSwapsWithinTheirFamily() throws {
        // An RSA key from PEM names no algorithm, so it accepts RS* and PS*; swapping the
        // header between them reaches the signature check, which fails.
        let privateKey = try JWTKey(pem: Vectors.text("rsa-pkcs8.pem"))
        let publicKey = try JWTKey(pem: Vectors.text("rsa-spki.pem"))
        #expect(publicKey.allowedAlgorithms == [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
        let token = try JWT.sign(Self.claims, key: privateKey, algorithm: .rs256)
        _ = try JWT.verify(token, keys: publicKey)
        for other: JWSAlgorithm in [.rs384, .rs512, .ps256, .ps384, .ps512] {
            var parts = TokenParts(token)
            parts.headerText = parts.headerText.replacingOccurrences(of: "RS256", with: other.rawValue)
            expectJWTError(.signatureInvalid, "\(other.rawValue)") { try JWT.verify(parts.token, keys: publicKey) }
        }
        for other: JWSAlgorithm in [.hs256, .es256, .edDSA, .ed25519] {
            var parts = TokenParts(token)
            parts.headerText = parts.headerText.replacingOccurrences(of: "RS256", with: other.rawValue)
            expectJWTError(.algorithmMismatch, "\(other.rawValue)") { try JWT.verify(parts.token, keys: publicKey) }
        }
        // Same for an HMAC secret long enough for all three.
        let secret = try JWTKey.hmac([UInt8](repeating: 7, count: 64))
        #expect(secret.allowedAlgorithms == [.hs256, .hs384, .hs512])
        let hs = try JWT.sign(Self.claims, key: secret, algorithm: .hs256)
        var swapped = TokenParts(hs)
        swapped.headerText = swapped.headerText.replacingOccurrences(of: "HS256", with: "HS512")
        expectJWTError(.signatureInvalid) { try JWT.verify(swapped.token, keys: secret) }
    }

    /// The classic confusion: the attacker signs HS256 with the server's RSA public key
    /// as the HMAC secret. The RSA key must refuse HS256 outright.
    @Test(arguments: ["rsa-spki.pem", "rsa-pkcs1-public.pem", "rsa-cert.pem"])
    func hs256SignedWithTheRSAPublicKeyIsRefused(file: String) throws {
        let pem = try Vectors.text(file)
        let rsa = try JWTKey(pem: pem)
        let spkiPEM = try #require(try rsa.pem())
        let der = try #require(
            Base64URL.decode(
                spkiPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")))
        let jwkJSON = rsa.jwk().jsonText
        for secret in [Array(pem.utf8), Array(spkiPEM.utf8), der, Array(jwkJSON.utf8)] {
            let forged = try JWT.sign(Self.claims, key: JWTKey.hmac(secret), algorithm: .hs256)
            expectJWTError(.algorithmMismatch) { try JWT.verify(forged, keys: rsa) }
            expectJWTError(.algorithmMismatch) { try JWT.verify(forged, keys: JWTKey(jwk: rsa.jwk())) }
            // A set holding the RSA key under a kid the forger copies is no weaker.
            let set = JWKSet(keys: [
                try JWTKey(jwk: JWK(json: #"{"kty":"RSA","kid":"k1","n":"\#(rsa.jwk().object["n"]?.stringValue ?? "")","e":"AQAB"}"#))
            ])
            let withKid = try JWT.sign(Self.claims, key: JWTKey.hmac(secret, keyID: "k1"), algorithm: .hs256)
            expectJWTError(.algorithmMismatch) { try JWT.verify(withKid, keys: set) }
        }
    }

    @Test func ecdsaKeysAcceptOnlyTheirCurve() throws {
        let p256 = try TestKeys.pair(.es256)
        let p384 = try TestKeys.pair(.es384)
        let p521 = try TestKeys.pair(.es512)
        #expect(p256.allowedAlgorithms == [.es256])
        // An unpinned P-256 key (from PEM) still accepts only ES256.
        let pemKey = try JWTKey(pem: Vectors.text("ec-p256-spki.pem"))
        #expect(pemKey.allowedAlgorithms == [.es256])
        let es384 = try JWT.sign(Self.claims, key: p384, algorithm: .es384)
        expectJWTError(.algorithmMismatch) { try JWT.verify(es384, keys: p256.publicKey) }
        expectJWTError(.algorithmMismatch) { try JWT.verify(es384, keys: pemKey) }
        expectJWTError(.algorithmMismatch) { try JWT.verify(JWT.sign(Self.claims, key: p521), keys: p384.publicKey) }
        // An ES256 token whose header claims ES384 is refused by the P-256 key.
        var parts = TokenParts(try JWT.sign(Self.claims, key: p256))
        parts.headerText = parts.headerText.replacingOccurrences(of: "ES256", with: "ES384")
        expectJWTError(.algorithmMismatch) { try JWT.verify(parts.token, keys: pemKey) }
        // The key cannot be built for the wrong curve's algorithm, nor sign with it.
        expectJWTError(.invalidKey) { try JWTKey(pem: Vectors.text("ec-p256-spki.pem"), algorithm: .es384) }
        expectJWTError(.algorithmMismatch) { try JWT.sign(Self.claims, key: p256, algorithm: .es384) }
    }

    @Test func aKeyPinnedToRS256RefusesPS256() throws {
        let signer = try JWTKey(pem: Vectors.text("rsa-pkcs8.pem"))
        let pinned = try JWTKey(pem: Vectors.text("rsa-spki.pem"), algorithm: .rs256)
        #expect(pinned.allowedAlgorithms == [.rs256])
        let ps256 = try JWT.sign(Self.claims, key: signer, algorithm: .ps256)
        _ = try JWT.verify(ps256, keys: JWTKey(pem: Vectors.text("rsa-spki.pem"), algorithm: .ps256))
        expectJWTError(.algorithmMismatch) { try JWT.verify(ps256, keys: pinned) }
        // The same through a JWK's "alg".
        let jwk = pinned.jwk()
        #expect(jwk.algorithm == "RS256")
        expectJWTError(.algorithmMismatch) { try JWT.verify(ps256, keys: JWTKey(jwk: jwk)) }
        // And through the per-call allow list, even for an unpinned key.
        let unpinned = try JWTKey(pem: Vectors.text("rsa-spki.pem"))
        let options = JWTValidationOptions(jws: JWSOptions(allowedAlgorithms: [.rs256]))
        expectJWTError(.algorithmMismatch) { try JWT.verify(ps256, keys: unpinned, options: options) }
    }

    @Test func ed25519AcceptsBothIdentifiers() throws {
        let key = try JWTKey(pem: Vectors.text("ed25519-pkcs8.pem"))
        #expect(key.allowedAlgorithms == [.edDSA, .ed25519])
        let publicKey = try JWTKey(pem: Vectors.text("ed25519-spki.pem"))
        for algorithm: JWSAlgorithm in [.edDSA, .ed25519] {
            let token = try JWT.sign(Self.claims, key: key, algorithm: algorithm)
            #expect(try JWT.verify(token, keys: publicKey).header.algorithm == algorithm)
        }
        // Ed25519 is deterministic: the same input signs to the same token.
        let a = try JWS.sign(payload: [1, 2, 3], key: key, algorithm: .edDSA)
        let b = try JWS.sign(payload: [1, 2, 3], key: key, algorithm: .edDSA)
        #expect(a == b)
    }

    @Test func noneCannotBeGeneratedOrUsedAsAKeyAlgorithm() throws {
        let algorithm = JWSAlgorithm.none
        expectJWTError(.unsupportedAlgorithm) { try JWTKey.generate(for: algorithm) }
        expectJWTError(.unsupportedAlgorithm) { try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(String(repeating: "A", count: 43))","alg":"none"}"#) }
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8](repeating: 1, count: 32), algorithm: algorithm) }
    }

    @Test func secretsShorterThanTheHashAreRefused() throws {
        // RFC 7518 §3.2: at least as many bytes as the hash output.
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8](repeating: 1, count: 31)) }
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8](repeating: 1, count: 31), algorithm: .hs256) }
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8](repeating: 1, count: 47), algorithm: .hs384) }
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8](repeating: 1, count: 63), algorithm: .hs512) }
        expectJWTError(.invalidKey) { try JWTKey.hmac([UInt8]()) }
        #expect(try JWTKey.hmac([UInt8](repeating: 1, count: 32)).allowedAlgorithms == [.hs256])
        #expect(try JWTKey.hmac([UInt8](repeating: 1, count: 48)).allowedAlgorithms == [.hs256, .hs384])
        #expect(try JWTKey.hmac([UInt8](repeating: 1, count: 64), algorithm: .hs512).allowedAlgorithms == [.hs512])
        // A 32-byte secret without a pinned alg cannot sign HS512.
        expectJWTError(.algorithmMismatch) { try JWT.sign(Self.claims, key: JWTKey.hmac([UInt8](repeating: 1, count: 32)), algorithm: .hs512) }
        // Through a JWK too: "k" of 20 bytes.
        expectJWTError(.invalidKey) { try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(Base64URL.encode([UInt8](repeating: 9, count: 20)))"}"#) }
        // A secret JWK with a non-HMAC alg.
        expectJWTError(.invalidKey) {
            try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(Base64URL.encode([UInt8](repeating: 9, count: 32)))","alg":"RS256"}"#)
        }
    }

    @Test func rsaKeysUnder2048BitsAreRefused() throws {
        let json = try Vectors.text("rsa1024-public.jwk.json")
        let error = expectJWTError(.invalidKey) { try JWTKey(jwkJSON: json) }
        #expect(error?.message.contains("2048") == true)
        let set = try JWKSet(json: #"{"keys":[\#(json)]}"#)
        #expect(set.keys.isEmpty)
        #expect(set.skipped.count == 1)
        #expect(set.skipped.first?.reason.contains("2048") == true)
    }
}
