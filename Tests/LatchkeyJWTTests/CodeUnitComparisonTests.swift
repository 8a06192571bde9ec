import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// JOSE strings compare by their UTF-8 code units (RFC 7515 §5.3, RFC 7519 §7.3), never
/// by Swift's `==`, which is Unicode canonical equivalence.
@Suite struct CodeUnitComparisonTests {
    /// "café" with a precomposed é (U+00E9) and with e + COMBINING ACUTE (U+0301):
    /// `==` says equal, the bytes differ.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    /// KELVIN SIGN decomposes canonically to "K".
    static let kelvin = "\u{212A}1"

    @Test func theFixtureIsWhatItClaims() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        #expect(Self.kelvin == "K1")
    }

    static func token(_ claims: JSONObject, kid: String? = nil, key: JWTKey) throws -> String {
        try JWT.sign(claims, key: key, extraHeader: kid.map { ["kid": .string($0)] } ?? [:])
    }

    @Test(arguments: [(composed, decomposed), (decomposed, composed), ("K1", kelvin)])
    func issuerMustMatchByBytes(expected: String, inToken: String) throws {
        let key = try TestKeys.pair(.hs256)
        let token = try Self.token(["iss": .string(inToken), "exp": 4_102_444_800], key: key)
        expectJWTError(.wrongIssuer) { try JWT.verify(token, keys: key, options: JWTValidationOptions(issuer: expected)) }
        expectJWTError(.wrongIssuer) { try JWT.verify(token, keys: key, options: JWTValidationOptions(issuers: [expected, "x"])) }
        _ = try JWT.verify(token, keys: key, options: JWTValidationOptions(issuer: inToken))
    }

    @Test(arguments: [(composed, decomposed), (decomposed, composed), ("K1", kelvin)])
    func audienceMustMatchByBytes(expected: String, inToken: String) throws {
        let key = try TestKeys.pair(.hs256)
        for aud: JSONValue in [.string(inToken), [.string(inToken), "other"]] {
            let token = try Self.token(["aud": aud, "exp": 4_102_444_800], key: key)
            expectJWTError(.wrongAudience) { try JWT.verify(token, keys: key, options: JWTValidationOptions(audience: expected)) }
            expectJWTError(.wrongAudience) { try JWT.verify(token, keys: key, options: JWTValidationOptions(audiences: [expected, "x"])) }
            _ = try JWT.verify(token, keys: key, options: JWTValidationOptions(audience: inToken))
        }
    }

    @Test(arguments: [(composed, decomposed), (decomposed, composed), ("K1", kelvin)])
    func keyIDMustMatchByBytes(inSet: String, inToken: String) throws {
        let key = try JWTKey.generate(for: .es256, keyID: inSet)
        let set = JWKSet(keys: [key.publicKey])
        #expect(set.contains(keyID: inSet))
        #expect(!set.contains(keyID: inToken))
        #expect(set.keys(withID: inToken).isEmpty)
        let token = try Self.token(["exp": 4_102_444_800], kid: inToken, key: key)
        expectJWTError(.keyNotFound) { try JWT.verify(token, keys: set) }
        let good = try Self.token(["exp": 4_102_444_800], kid: inSet, key: key)
        _ = try JWT.verify(good, keys: set)
    }

    @Test func claimAndHeaderNamesMatchByBytes() throws {
        let key = try TestKeys.pair(.hs256)
        let token = try Self.token([.init(stringLiteral: Self.decomposed): 1, "exp": 4_102_444_800] as JSONObject, key: key)
        let jwt = try JWT.decode(token)
        #expect(jwt.claims[Self.decomposed] == 1)
        #expect(jwt.claims[Self.composed] == nil)
        expectJWTError(.missingClaim) { try JWT.verify(token, keys: key, options: JWTValidationOptions(requiredClaims: [Self.composed])) }
        // A critical header understood under the other spelling is not understood.
        let header = #"{"alg":"HS256","crit":["\#(Self.decomposed)"],"\#(Self.decomposed)":1}"#
        let critical = try JWS.sign(payload: Array("{}".utf8), key: key, extraHeader: try #require(JSONValue.parse(header).objectValue))
        expectJWTError(.unsupportedCritical) {
            try JWS.verify(critical, keys: key, options: JWSOptions(understoodCriticalHeaders: [Self.composed]))
        }
        _ = try JWS.verify(critical, keys: key, options: JWSOptions(understoodCriticalHeaders: [Self.decomposed]))
    }

    @Test func membersDifferingOnlyByNormalizationAreTwoMembers() throws {
        let key = try TestKeys.pair(.hs256)
        // Before and after the parser's switch to a set at 16 members, first and last.
        for filler in [0, 3, 15, 16, 20, 40] {
            let members = (0..<filler).map { #""m\#($0)":\#($0)"# }
            for pair in [[Self.composed, Self.decomposed], [Self.decomposed, Self.composed], ["K1", Self.kelvin]] {
                for layout in [
                    pair.map { #""\#($0)":1"# } + members, members + pair.map { #""\#($0)":1"# },
                    [#""\#(pair[0])":1"#] + members + [#""\#(pair[1])":1"#],
                ] {
                    let payload = "{" + layout.joined(separator: ",") + "}"
                    let token = try JWS.sign(payload: Array(payload.utf8), key: key)
                    let claims = try JWT.decode(token).claims
                    #expect(claims.object.count == filler + 2, "\(filler) members: \(payload.prefix(60))")
                    #expect(claims[pair[0]] == 1 && claims[pair[1]] == 1)
                }
            }
        }
    }
}

/// Several allowed audiences.
@Suite struct AudienceTests {
    @Test func aTokenPassesWhenItsAudienceMeetsAnyAllowedOne() throws {
        let key = try TestKeys.pair(.hs256)
        let single = try JWT.sign(["aud": "api", "exp": 4_102_444_800], key: key)
        let several = try JWT.sign(["aud": ["web", "api"], "exp": 4_102_444_800], key: key)
        let options = JWTValidationOptions(audiences: ["api", "admin"])
        _ = try JWT.verify(single, keys: key, options: options)
        _ = try JWT.verify(several, keys: key, options: options)
        _ = try JWT.verify(several, keys: key, options: JWTValidationOptions(audience: "web", audiences: ["nope"]))
        let error = expectJWTError(.wrongAudience) { try JWT.verify(several, keys: key, options: JWTValidationOptions(audiences: ["admin", "ops"])) }
        #expect(error?.message == #"wrong audience: none of ["admin", "ops"] is among ["web", "api"]"#)
        let one = expectJWTError(.wrongAudience) { try JWT.verify(single, keys: key, options: JWTValidationOptions(audience: "web")) }
        #expect(one?.message == #"wrong audience: "web" is not among ["api"]"#)
        let missing = try JWT.sign(["exp": 4_102_444_800], key: key)
        expectJWTError(.missingClaim) { try JWT.verify(missing, keys: key, options: options) }
        // No audience configured: aud is not checked.
        _ = try JWT.verify(several, keys: key)
    }
}

/// Several allowed issuers (Stytch signs as `stytch.com/{project}` or the custom domain).
@Suite struct IssuersTests {
    @Test func aTokenPassesWhenItsIssuerIsAnyAllowedOne() throws {
        let key = try TestKeys.pair(.hs256)
        let stytch = try JWT.sign(["iss": "stytch.com/project-test-1", "exp": 4_102_444_800], key: key)
        let custom = try JWT.sign(["iss": "https://login.example.com", "exp": 4_102_444_800], key: key)
        // An escape makes the parser build the string instead of reading it in place.
        let escaped = try JWS.sign(payload: Array(#"{"iss":"https:\/\/login.example.com","exp":4102444800}"#.utf8), key: key)
        let options = JWTValidationOptions(issuers: ["stytch.com/project-test-1", "https://login.example.com"])
        for token in [stytch, custom, escaped] { _ = try JWT.verify(token, keys: key, options: options) }
        _ = try JWT.verify(custom, keys: key, options: JWTValidationOptions(issuer: "https://login.example.com", issuers: ["nope"]))
        let other = try JWT.sign(["iss": "stytch.com/project-test-2", "exp": 4_102_444_800], key: key)
        let error = expectJWTError(.wrongIssuer) { try JWT.verify(other, keys: key, options: options) }
        #expect(
            error?.message
                == #"wrong issuer "stytch.com/project-test-2" (expected one of ["https://login.example.com", "stytch.com/project-test-1"])"#)
        let one = expectJWTError(.wrongIssuer) { try JWT.verify(other, keys: key, options: JWTValidationOptions(issuer: "a")) }
        #expect(one?.message == #"wrong issuer "stytch.com/project-test-2" (expected "a")"#)
        let missing = try JWT.sign(["exp": 4_102_444_800], key: key)
        expectJWTError(.missingClaim) { try JWT.verify(missing, keys: key, options: options) }
    }
}
