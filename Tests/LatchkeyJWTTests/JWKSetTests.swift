import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Key sets: selection by `kid`, kid-less tokens, and entries that are skipped.
@Suite struct JWKSetTests {
    static let claims: JSONObject = ["sub": "set-test"]

    /// A set of three keys with kids and algs, as a JWKS document.
    static func document(_ keys: [JWTKey], extra: [String] = []) -> String {
        let entries = keys.map { $0.jwk().jsonText } + extra
        return #"{"keys":[\#(entries.joined(separator: ","))]}"#
    }

    @Test func picksTheKeyByKid() throws {
        let rsa = try TestKeys.pair(.rs256), ec = try TestKeys.pair(.es256), ed = try TestKeys.pair(.edDSA)
        let set = try JWKSet(json: Self.document([rsa, ec, ed]))
        #expect(set.keys.map(\.keyID) == [rsa.keyID, ec.keyID, ed.keyID])
        #expect(set.skipped.isEmpty)
        for signer in [rsa, ec, ed] {
            let token = try JWT.sign(Self.claims, key: signer)
            let verifiedBy = try CompactJWS(token).verify(with: set)
            #expect(verifiedBy?.keyID == signer.keyID)
        }
        #expect(set.contains(keyID: "test-ES256"))
        #expect(set.keys(withID: "test-ES256").count == 1)
        #expect(set.keys(withID: "nope").isEmpty)
    }

    @Test func unknownKidIsKeyNotFound() throws {
        let set = try JWKSet(json: Self.document([try TestKeys.pair(.rs256)]))
        let stranger = try JWTKey.generate(for: .rs256, keyID: "stranger")
        let error = expectJWTError(.keyNotFound) { try JWT.verify(JWT.sign(Self.claims, key: stranger), keys: set) }
        #expect(error?.message.contains("stranger") == true)
    }

    @Test func aKidNamingTheWrongKeyFailsTheSignature() throws {
        // The token claims the kid of a same-algorithm key in the set but was signed by another.
        let set = try JWKSet(json: Self.document([try TestKeys.pair(.es256)]))
        let impostor = try JWTKey.generate(for: .es256, keyID: "test-ES256")
        expectJWTError(.signatureInvalid) { try JWT.verify(JWT.sign(Self.claims, key: impostor), keys: set) }
    }

    @Test func kidLessTokensTryOnlyKeysWhoseAlgMatches() throws {
        let es256 = try TestKeys.pair(.es256), es384 = try TestKeys.pair(.es384), rs = try TestKeys.pair(.rs256)
        // Strip the kids, keep the algs.
        func anonymous(_ key: JWTKey) throws -> JWTKey {
            var object = key.jwk(includingPrivate: true).object
            object["kid"] = nil
            return try JWTKey(jwk: JWK(object: object))
        }
        let signers = try [es256, es384, rs].map(anonymous)
        let set = JWKSet(keys: signers.map(\.publicKey))
        for signer in signers {
            let token = try JWT.sign(Self.claims, key: signer)
            #expect(try CompactJWS(token).header.keyID == nil)
            let verifiedBy = try CompactJWS(token).verify(with: set)
            #expect(verifiedBy?.algorithm == signer.algorithm)
        }
        // A key without "alg" is never guessed for a kid-less token, even if it would verify.
        var noAlg = es256.jwk().object
        noAlg["alg"] = nil
        noAlg["kid"] = nil
        let unpinnedSet = try JWKSet(json: #"{"keys":[\#(JSONValue.object(noAlg).jsonText)]}"#)
        #expect(unpinnedSet.keys.count == 1)
        let token = try JWT.sign(Self.claims, key: signers[0])
        _ = try JWT.verify(token, keys: unpinnedSet.keys[0])
        expectJWTError(.keyNotFound) { try JWT.verify(token, keys: unpinnedSet) }
        // And with no key of the token's alg at all.
        let hsToken = try JWT.sign(Self.claims, key: JWTKey.hmac([UInt8](repeating: 3, count: 32), algorithm: .hs256))
        expectJWTError(.keyNotFound) { try JWT.verify(hsToken, keys: set) }
    }

    @Test func kidLessTokenWithSeveralCandidatesFindsTheOneThatVerifies() throws {
        let keys = try (0..<3).map { _ in try JWTKey.generate(for: .es256) }
        let set = JWKSet(keys: keys.map(\.publicKey))
        let token = try JWT.sign(Self.claims, key: keys[2])
        _ = try JWT.verify(token, keys: set)
        let outsider = try JWT.sign(Self.claims, key: JWTKey.generate(for: .es256))
        expectJWTError(.signatureInvalid) { try JWT.verify(outsider, keys: set) }
    }

    @Test func duplicateKidsAreTriedByAlgorithm() throws {
        // Two keys share a kid (as during some rotations); the one for the token's alg verifies.
        var rsaObject = try TestKeys.pair(.rs256).jwk().object
        var ecObject = try TestKeys.pair(.es256).jwk().object
        rsaObject["kid"] = "shared"
        ecObject["kid"] = "shared"
        let set = try JWKSet(json: #"{"keys":[\#(JSONValue.object(rsaObject).jsonText),\#(JSONValue.object(ecObject).jsonText)]}"#)
        #expect(set.keys(withID: "shared").count == 2)
        for algorithm: JWSAlgorithm in [.rs256, .es256] {
            var signer = try TestKeys.pair(algorithm).jwk(includingPrivate: true).object
            signer["kid"] = "shared"
            _ = try JWT.verify(JWT.sign(Self.claims, key: JWTKey(jwk: JWK(object: signer))), keys: set)
        }
    }

    @Test func unusableEntriesAreSkippedWithAReason() throws {
        let good = try TestKeys.pair(.es256)
        let x25519 = #"{"kty":"OKP","crv":"X25519","kid":"x","x":"\#(Base64URL.encode([UInt8](repeating: 9, count: 32)))"}"#
        var oaep = try TestKeys.pair(.rs256).jwk().object
        oaep["alg"] = "RSA-OAEP"
        oaep["use"] = "enc"
        oaep["kid"] = "oaep"
        let extra = [
            x25519,
            JSONValue.object(oaep).jsonText,
            #"{"kty":"EC","crv":"secp256k1","kid":"k1","x":"AA","y":"AA"}"#,
            #"{"kty":"unknown","kid":"u"}"#,
            try Vectors.text("rsa1024-public.jwk.json"),
            #""not an object""#,
            #"{"kid":"no-kty"}"#,
        ]
        let set = try JWKSet(json: Self.document([good], extra: extra))
        #expect(set.keys.map(\.keyID) == [good.keyID])
        #expect(set.skipped.map(\.index) == Array(1...extra.count))
        for entry in set.skipped { #expect(!entry.reason.isEmpty) }
        _ = try JWT.verify(JWT.sign(Self.claims, key: good), keys: set)
    }

    @Test func encryptionKeysAreParsedButDoNotVerify() throws {
        let signer = try TestKeys.pair(.rs256)
        var enc = signer.jwk().object
        enc["use"] = "enc"
        enc["alg"] = nil
        let set = try JWKSet(json: #"{"keys":[\#(JSONValue.object(enc).jsonText)]}"#)
        #expect(set.keys.count == 1)
        #expect(set.skipped.isEmpty)
        #expect(set.keys[0].canVerify == false)
        expectJWTError(.keyUsageNotAllowed) { try JWT.verify(JWT.sign(Self.claims, key: signer), keys: set) }
    }

    @Test func malformedDocumentsAreInvalidKeys() {
        for json in ["", "[]", "{}", #"{"keys":{}}"#, #"{"keys":"x"}"#, #"{"keys":[]"#, #"{"keys":[],"keys":[]}"#] {
            expectJWTError(.invalidKey, "\(json)") { try JWKSet(json: json) }
        }
        // An empty set parses, and finds nothing.
        #expect((try? JWKSet(json: #"{"keys":[]}"#))?.keys.isEmpty == true)
    }

    @Test func setJSONRoundTrip() throws {
        let keys = try [JWSAlgorithm.rs256, .es384, .ed25519, .hs256].map(TestKeys.pair)
        let set = JWKSet(keys: keys)
        let publicText = set.jsonText()
        #expect(!publicText.contains("\"d\""))
        let reparsed = try JWKSet(json: publicText)
        // The secret has no public form, so it is skipped on the way back in.
        #expect(reparsed.keys.map(\.keyID) == keys.dropLast().map(\.keyID))
        #expect(reparsed.skipped.count == 1)
        let privateSet = try JWKSet(json: set.jsonText(includingPrivate: true))
        #expect(privateSet.keys.count == 4)
        for key in keys {
            _ = try JWT.verify(JWT.sign(Self.claims, key: key), keys: privateSet)
        }
    }
}
