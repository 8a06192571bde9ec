import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// `crit` (RFC 7515 §4.1.11) and the header members that must never be trusted.
@Suite struct HeaderTests {
    static let claims: JSONObject = ["sub": "header-test"]

    static func key() throws -> JWTKey { try TestKeys.pair(.hs256) }

    static func sign(extraHeader: JSONObject) throws -> String {
        try JWT.sign(claims, key: key(), extraHeader: extraHeader)
    }

    @Test func unknownCriticalExtensionFails() throws {
        let token = try Self.sign(extraHeader: ["crit": ["exp"], "exp": 1_363_284_000])
        let error = expectJWTError(.unsupportedCritical) { try JWT.verify(token, keys: Self.key()) }
        #expect(error?.message.contains("\"exp\"") == true)
        // Decoding without verification still shows it.
        #expect(try JWT.decode(token).header.critical == ["exp"])
    }

    @Test func understoodCriticalExtensionPasses() throws {
        let token = try Self.sign(extraHeader: ["crit": ["exp", "b64x"], "exp": 1_363_284_000, "b64x": true])
        let understood = JWTValidationOptions(jws: JWSOptions(understoodCriticalHeaders: ["exp", "b64x"]))
        let jwt = try JWT.verify(token, keys: Self.key(), options: understood)
        #expect(jwt.header.critical == ["exp", "b64x"])
        #expect(jwt.header["b64x"] == .bool(true))
        // Understanding only some of them is not enough.
        let partly = JWTValidationOptions(jws: JWSOptions(understoodCriticalHeaders: ["exp"]))
        let error = expectJWTError(.unsupportedCritical) { try JWT.verify(token, keys: Self.key(), options: partly) }
        #expect(error?.message.contains("b64x") == true)
        #expect(error?.message.contains("\"exp\"") == false)
    }

    @Test(arguments: ["alg", "kid", "typ", "cty", "jku", "jwk", "x5u", "x5c", "x5t", "x5t#S256", "crit"])
    func critListingARegisteredNameIsMalformed(name: String) throws {
        var header: JSONObject = ["crit": [.string(name)]]
        if name != "alg" && name != "crit" && header[name] == nil { header[name] = "v" }
        let token = try Self.sign(extraHeader: header)
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: Self.key()) }
        #expect(error?.message.contains("registered") == true)
        // Even a caller who claims to understand it cannot make it valid: parsing fails first.
        let options = JWTValidationOptions(jws: JWSOptions(understoodCriticalHeaders: [name]))
        expectJWTError(.malformed) { try JWT.verify(token, keys: Self.key(), options: options) }
    }

    @Test func critListingAnAbsentMemberIsMalformed() throws {
        let token = try Self.sign(extraHeader: ["crit": ["http://example.com/absent"]])
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: Self.key()) }
        #expect(error?.message.contains("absent") == true)
    }

    @Test(arguments: [JSONValue.array([]), "exp", 1, .array([1]), .array(["exp", 2]), .null, .object(["exp": true])])
    func critMustBeANonEmptyArrayOfStrings(crit: JSONValue) throws {
        let token = try Self.sign(extraHeader: ["crit": crit, "exp": 1])
        expectJWTError(.malformed) { try JWT.decode(token) }
        expectJWTError(.malformed) { try JWT.verify(token, keys: Self.key()) }
    }

    @Test(arguments: ["kid", "typ", "cty"])
    func stringMembersMustBeStrings(name: String) throws {
        let token = try Self.sign(extraHeader: [name: 5])
        expectJWTError(.malformed) { try JWT.verify(token, keys: Self.key()) }
    }

    @Test func algMustBePresentAndAString() throws {
        for header in [#"{"typ":"JWT"}"#, #"{"alg":256}"#, #"{"alg":null}"#, #"{"alg":["HS256"]}"#] {
            let token = rawToken(header: header, payload: #"{"sub":"x"}"#, signature: [1, 2, 3])
            expectJWTError(.malformed, "\(header)") { try JWT.verify(token, keys: Self.key()) }
        }
        let unknown = rawToken(header: #"{"alg":"HS1024"}"#, payload: #"{"sub":"x"}"#, signature: [1, 2, 3])
        let error = expectJWTError(.unsupportedAlgorithm) { try JWT.verify(unknown, keys: Self.key()) }
        #expect(error?.message.contains("HS1024") == true)
    }

    /// `jku`, `x5u` and `jwk` name keys the attacker controls: they must change nothing.
    @Test func embeddedKeyHeadersAreIgnored() throws {
        let attacker = try JWTKey.generate(for: .rs256)
        let victim = try JWTKey(pem: Vectors.text("rsa-spki.pem"), algorithm: .rs256)
        let token = try JWT.sign(
            Self.claims, key: attacker,
            extraHeader: [
                "jwk": .object(attacker.jwk().object),
                "jku": "https://attacker.example/jwks.json",
                "x5u": "https://attacker.example/cert.pem",
                "x5c": ["MIIB"],
            ])
        let header = try JWT.decode(token).header
        #expect(header["jwk"] != nil)
        #expect(header["jku"] == "https://attacker.example/jwks.json")
        // Only the caller's key counts: the token fails against it...
        expectJWTError(.signatureInvalid) { try JWT.verify(token, keys: victim) }
        // ...and against a set (the victim's key declares RS256, so the kid-less token
        // is tried against it alone), whatever the embedded key says.
        let set = try JWKSet(json: #"{"keys":[\#(victim.jwk().jsonText)]}"#)
        expectJWTError(.signatureInvalid) { try JWT.verify(token, keys: set) }
        // The same forgery with a kid matching the victim's set entry.
        let withKid = try JWTKey(
            jwk: JWK(
                object: {
                    var object = attacker.jwk(includingPrivate: true).object
                    object["kid"] = "victim"
                    return object
                }()))
        let victimSet = JWKSet(keys: [try JWTKey(pem: Vectors.text("rsa-spki.pem"), algorithm: .rs256, keyID: "victim")])
        let forged = try JWT.sign(Self.claims, key: withKid, extraHeader: ["jwk": .object(attacker.jwk().object)])
        expectJWTError(.signatureInvalid) { try JWT.verify(forged, keys: victimSet) }
    }

    @Test func signingPutsAlgFirstAndIgnoresAnExtraAlg() throws {
        let token = try JWS.sign(payload: [1], key: Self.key(), algorithm: .hs256, extraHeader: ["alg": "none", "cty": "x"])
        let header = try CompactJWS(token).header
        #expect(header.algorithm == .hs256)
        #expect(header.object.names.first == "alg")
        #expect(header.contentType == "x")
        // The key's kid is added unless the caller gives one.
        #expect(header.keyID == "test-HS256")
        let custom = try JWS.sign(payload: [1], key: Self.key(), extraHeader: ["kid": "override"])
        #expect(try CompactJWS(custom).header.keyID == "override")
        // JWT.sign adds typ JWT unless told otherwise.
        #expect(try JWT.decode(JWT.sign(Self.claims, key: Self.key())).header.type == "JWT")
        #expect(try JWT.decode(JWT.sign(Self.claims, key: Self.key(), extraHeader: ["typ": "at+jwt"])).header.type == "at+jwt")
    }
}
