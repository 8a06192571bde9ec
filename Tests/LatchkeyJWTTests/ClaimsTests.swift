import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Claims validation against an injected clock, typed access, and custom claims.
@Suite struct ClaimsTests {
    static let t: TimeInterval = rfcExpiry

    static func key() throws -> JWTKey { try TestKeys.pair(.hs256) }

    static func verify(
        _ claims: JSONObject, at now: TimeInterval, leeway: TimeInterval = 0, maxAge: TimeInterval? = nil,
        issuer: String? = nil, audience: String? = nil, required: Set<String> = []
    ) throws -> JWT {
        let token = try JWT.sign(claims, key: key())
        let options = JWTValidationOptions(
            issuer: issuer, audience: audience, requiredClaims: required, leeway: leeway,
            maxAge: maxAge, now: fixedClock(now))
        return try JWT.verify(token, keys: key(), options: options)
    }

    // MARK: exp

    @Test func expWithoutLeeway() throws {
        _ = try Self.verify(["exp": .number(Self.t)], at: Self.t - 1)
        _ = try Self.verify(["exp": .number(Self.t)], at: Self.t - 0.001)
        // RFC 7519 §4.1.4: the current time must be *before* exp.
        let error = expectJWTError(.expired) { try Self.verify(["exp": .number(Self.t)], at: Self.t) }
        #expect(error?.message == "expired at 2011-03-22T18:43:00Z")
        expectJWTError(.expired) { try Self.verify(["exp": .number(Self.t)], at: Self.t + 1) }
    }

    @Test func expWithTheDefaultLeeway() throws {
        #expect(JWTValidationOptions().leeway == 60)
        let token = try JWT.sign(["exp": .number(Self.t)], key: Self.key())
        let at = { (now: TimeInterval) in JWTValidationOptions(now: fixedClock(now)) }
        _ = try JWT.verify(token, keys: Self.key(), options: at(Self.t + 59))
        _ = try JWT.verify(token, keys: Self.key(), options: at(Self.t + 59.999))
        let error = expectJWTError(.expired) { try JWT.verify(token, keys: Self.key(), options: at(Self.t + 60)) }
        #expect(error?.message.contains("2011-03-22T18:43:00Z") == true)
    }

    @Test func fractionalExp() throws {
        _ = try Self.verify(["exp": .number(Self.t + 0.5)], at: Self.t + 0.25)
        expectJWTError(.expired) { try Self.verify(["exp": .number(Self.t + 0.5)], at: Self.t + 0.5) }
    }

    // MARK: nbf

    @Test func nbfWithoutLeeway() throws {
        _ = try Self.verify(["nbf": .number(Self.t)], at: Self.t)
        _ = try Self.verify(["nbf": .number(Self.t)], at: Self.t + 1)
        let error = expectJWTError(.notYetValid) { try Self.verify(["nbf": .number(Self.t)], at: Self.t - 1) }
        #expect(error?.message == "not valid before 2011-03-22T18:43:00Z")
        expectJWTError(.notYetValid) { try Self.verify(["nbf": .number(Self.t)], at: Self.t - 0.001) }
    }

    @Test func nbfWithLeeway() throws {
        _ = try Self.verify(["nbf": .number(Self.t)], at: Self.t - 60, leeway: 60)
        expectJWTError(.notYetValid) { try Self.verify(["nbf": .number(Self.t)], at: Self.t - 61, leeway: 60) }
    }

    // MARK: iat and maxAge

    @Test func iatInTheFuture() throws {
        _ = try Self.verify(["iat": .number(Self.t)], at: Self.t)
        _ = try Self.verify(["iat": .number(Self.t)], at: Self.t - 60, leeway: 60)
        let error = expectJWTError(.issuedAtInvalid) { try Self.verify(["iat": .number(Self.t)], at: Self.t - 1) }
        #expect(error?.message.contains("2011-03-22T18:43:00Z") == true)
        expectJWTError(.issuedAtInvalid) { try Self.verify(["iat": .number(Self.t)], at: Self.t - 61, leeway: 60) }
        // Without maxAge an old iat is fine.
        _ = try Self.verify(["iat": 0], at: Self.t)
    }

    @Test func maxAgeFromIat() throws {
        _ = try Self.verify(["iat": .number(Self.t)], at: Self.t + 300, maxAge: 300)
        let error = expectJWTError(.issuedAtInvalid) { try Self.verify(["iat": .number(Self.t)], at: Self.t + 301, maxAge: 300) }
        #expect(error?.message.contains("300") == true)
        #expect(error?.message.contains("2011-03-22T18:43:00Z") == true)
        // The leeway extends the maximum age too.
        _ = try Self.verify(["iat": .number(Self.t)], at: Self.t + 360, leeway: 60, maxAge: 300)
        expectJWTError(.issuedAtInvalid) { try Self.verify(["iat": .number(Self.t)], at: Self.t + 361, leeway: 60, maxAge: 300) }
        // A maximum age needs an iat.
        let missing = expectJWTError(.missingClaim) { try Self.verify(["sub": "x"], at: Self.t, maxAge: 300) }
        #expect(missing?.message.contains("iat") == true)
    }

    @Test func allTimeClaimsTogether() throws {
        let claims: JSONObject = ["iat": .number(Self.t - 10), "nbf": .number(Self.t - 10), "exp": .number(Self.t + 10)]
        let jwt = try Self.verify(claims, at: Self.t, maxAge: 60)
        #expect(jwt.claims.issuedAt == Date(timeIntervalSince1970: Self.t - 10))
        #expect(jwt.claims.notBefore == Date(timeIntervalSince1970: Self.t - 10))
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: Self.t + 10))
    }

    @Test func extremeTimesDoNotCrash() throws {
        expectJWTError(.expired) { try Self.verify(["exp": -1e300], at: Self.t) }
        expectJWTError(.notYetValid) { try Self.verify(["nbf": 1e300], at: Self.t) }
        expectJWTError(.issuedAtInvalid) { try Self.verify(["iat": 1e300], at: Self.t) }
        expectJWTError(.expired) { try Self.verify(["exp": 0], at: Self.t) }
        _ = try Self.verify(["exp": 1e300], at: Self.t)
    }

    // MARK: iss, aud, required

    @Test func issuer() throws {
        _ = try Self.verify(["iss": "https://issuer.example"], at: Self.t, issuer: "https://issuer.example")
        let error = expectJWTError(.wrongIssuer) { try Self.verify(["iss": "https://evil.example"], at: Self.t, issuer: "https://issuer.example") }
        #expect(error?.message.contains("https://evil.example") == true)
        // Exact match only: no prefix, case or trailing-slash games.
        for wrong in ["https://issuer.example/", "HTTPS://ISSUER.EXAMPLE", "https://issuer.example.evil", "https://issuer.exampl"] {
            expectJWTError(.wrongIssuer, "\(wrong)") { try Self.verify(["iss": .string(wrong)], at: Self.t, issuer: "https://issuer.example") }
        }
        expectJWTError(.missingClaim) { try Self.verify(["sub": "x"], at: Self.t, issuer: "https://issuer.example") }
        // Not checked when not asked for.
        _ = try Self.verify(["iss": "anyone"], at: Self.t)
    }

    @Test func audienceAsString() throws {
        _ = try Self.verify(["aud": "api"], at: Self.t, audience: "api")
        let error = expectJWTError(.wrongAudience) { try Self.verify(["aud": "other"], at: Self.t, audience: "api") }
        #expect(error?.message.contains("api") == true)
        expectJWTError(.wrongAudience) { try Self.verify(["aud": "API"], at: Self.t, audience: "api") }
        expectJWTError(.wrongAudience) { try Self.verify(["aud": "apis"], at: Self.t, audience: "api") }
    }

    @Test func audienceAsArray() throws {
        let jwt = try Self.verify(["aud": ["web", "api", "cli"]], at: Self.t, audience: "api")
        #expect(jwt.claims.audience == ["web", "api", "cli"])
        expectJWTError(.wrongAudience) { try Self.verify(["aud": ["web", "cli"]], at: Self.t, audience: "api") }
        expectJWTError(.wrongAudience) { try Self.verify(["aud": []], at: Self.t, audience: "api") }
        // A single-string audience reads as a one-element array.
        #expect(try Self.verify(["aud": "api"], at: Self.t).claims.audience == ["api"])
    }

    @Test func audienceMissingOrMistyped() throws {
        expectJWTError(.missingClaim) { try Self.verify(["sub": "x"], at: Self.t, audience: "api") }
        expectJWTError(.invalidClaim) { try Self.verify(["aud": 5], at: Self.t, audience: "api") }
        expectJWTError(.invalidClaim) { try Self.verify(["aud": ["api", 5]], at: Self.t, audience: "api") }
        expectJWTError(.invalidClaim) { try Self.verify(["aud": ["api", .null]], at: Self.t) }
        expectJWTError(.invalidClaim) { try Self.verify(["aud": .object(["api": true])], at: Self.t) }
    }

    @Test func requiredClaims() throws {
        _ = try Self.verify(["sub": "x", "jti": "1"], at: Self.t, required: ["sub", "jti"])
        let error = expectJWTError(.missingClaim) { try Self.verify(["sub": "x"], at: Self.t, required: ["sub", "jti"]) }
        #expect(error?.message.contains("\"jti\"") == true)
        expectJWTError(.missingClaim) { try Self.verify([:], at: Self.t, required: ["exp"]) }
        // A required claim that is present but null is present.
        _ = try Self.verify(["custom": .null], at: Self.t, required: ["custom"])
    }

    // MARK: Types

    @Test(arguments: [
        ("exp", JSONValue.string("1300819380")), ("exp", .bool(true)), ("exp", .null), ("exp", .array([1])),
        ("nbf", .string("0")), ("iat", .object([:])),
        ("iss", .number(5)), ("sub", .array(["a"])), ("jti", .bool(false)), ("aud", .number(1)),
    ])
    func registeredClaimsOfTheWrongTypeAreInvalid(name: String, value: JSONValue) throws {
        let error = expectJWTError(.invalidClaim) { try Self.verify([name: value], at: Self.t) }
        #expect(error?.message.contains("\"\(name)\"") == true)
    }

    // MARK: Access

    @Test func registeredClaimAccessors() throws {
        let jwt = try Self.verify(["iss": "i", "sub": "s", "jti": "j", "aud": "a", "exp": .number(Self.t + 1)], at: Self.t)
        #expect(jwt.claims.issuer == "i")
        #expect(jwt.claims.subject == "s")
        #expect(jwt.claims.jwtID == "j")
        #expect(jwt.claims.audience == ["a"])
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: Self.t + 1))
        #expect(jwt.claims.notBefore == nil)
        #expect(jwt.claims["missing"] == nil)
        // The exact payload bytes are kept.
        #expect(String(decoding: jwt.claims.payload, as: UTF8.self).hasPrefix(#"{"iss":"i""#))
        #expect(jwt.claims.object.names == ["iss", "sub", "jti", "aud", "exp"])
    }

    struct Profile: Codable, Equatable {
        var name: String
        var roles: [String]
        var age: Int?
    }

    struct Claims: Codable, Equatable {
        var sub: String
        var exp: Date
        var profile: Profile
        var admin: Bool
    }

    @Test func customClaimsAsCodable() throws {
        let claims: JSONObject = [
            "sub": "alice", "exp": .number(Self.t + 3600), "admin": false,
            "profile": .object(["name": "Alice", "roles": ["reader", "writer"], "age": 30]),
        ]
        let jwt = try Self.verify(claims, at: Self.t)
        #expect(try jwt.claims.claim("profile", as: Profile.self) == Profile(name: "Alice", roles: ["reader", "writer"], age: 30))
        #expect(try jwt.claims.claim("profile", as: [String: JSONValue].self)?["age"] == 30)
        #expect(try jwt.claims.claim("admin", as: Bool.self) == false)
        #expect(try jwt.claims.claim("exp", as: Date.self) == Date(timeIntervalSince1970: Self.t + 3600))
        #expect(try jwt.claims.claim("missing", as: String.self) == nil)
        let wrong = expectJWTError(.invalidClaim) { try jwt.claims.claim("admin", as: String.self) }
        #expect(wrong?.message.contains("admin") == true)
        expectJWTError(.invalidClaim) { try jwt.claims.claim("profile", as: [Int].self) }
        let all = try jwt.claims.decode(Claims.self)
        #expect(all.sub == "alice")
        #expect(all.exp == Date(timeIntervalSince1970: Self.t + 3600))
        #expect(all.profile.roles == ["reader", "writer"])
        expectJWTError(.invalidClaim) { try jwt.claims.decode([String].self) }
    }

    @Test func signingEncodableClaims() throws {
        let claims = Claims(
            sub: "bob", exp: Date(timeIntervalSince1970: Self.t + 60),
            profile: Profile(name: "Bob", roles: [], age: nil), admin: true)
        let token = try JWT.sign(encoding: claims, key: Self.key())
        let jwt = try JWT.verify(token, keys: Self.key(), options: JWTValidationOptions(leeway: 0, now: fixedClock(Self.t)))
        #expect(jwt.header.type == "JWT")
        #expect(jwt.claims.expiresAt == claims.exp)
        #expect(try jwt.claims.decode(Claims.self) == claims)
        // Dates are encoded as seconds, so the expiry is enforced.
        expectJWTError(.expired) {
            try JWT.verify(token, keys: Self.key(), options: JWTValidationOptions(leeway: 0, now: fixedClock(Self.t + 60)))
        }
    }

    @Test func decodeDoesNotValidate() throws {
        let token = try JWT.sign(["exp": 0, "iss": "x"], key: Self.key())
        let jwt = try JWT.decode(token)
        #expect(jwt.claims.issuer == "x")
        #expect(jwt.signature.count == 32)
        expectJWTError(.expired) { try jwt.claims.validate(JWTValidationOptions()) }
        // A bad signature does not stop decoding either (that is what decode is for).
        var parts = TokenParts(token)
        parts.signature[0] ^= 1
        #expect(try JWT.decode(parts.token).claims.issuer == "x")
    }

    @Test func theSystemClockIsTheDefault() throws {
        let now = Date().timeIntervalSince1970
        let fresh = try JWT.sign(["exp": .number(now + 300), "iat": .number(now)], key: Self.key())
        _ = try JWT.verify(fresh, keys: Self.key())
        let stale = try JWT.sign(["exp": .number(now - 300)], key: Self.key())
        expectJWTError(.expired) { try JWT.verify(stale, keys: Self.key()) }
    }

    @Test func signatureIsCheckedBeforeClaims() throws {
        // An expired token with a bad signature reports the signature, not the expiry.
        var parts = TokenParts(try JWT.sign(["exp": 0], key: Self.key()))
        parts.signature[0] ^= 1
        expectJWTError(.signatureInvalid) { try JWT.verify(parts.token, keys: Self.key()) }
    }
}
