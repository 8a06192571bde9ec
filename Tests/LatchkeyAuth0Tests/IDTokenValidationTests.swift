import Foundation
import Latchkey
import LatchkeyJSON
import LatchkeyJWT
import Synchronization
import Testing

@testable import LatchkeyAuth0

/// A tenant answering from memory: its JWKS and one token answer whose ID token the
/// test crafts, so every claim can be wrong in turn.
final class CraftedTenant: HTTPTransport, Sendable {
    let key: JWTKey
    let published = Mutex<[JWTKey]>([])
    let idToken = Mutex<String?>(nil)
    let jwksFetches = Mutex(0)

    init() throws {
        key = try JWTKey.generate(for: .rs256, keyID: "key-1")
        published.withLock { $0 = [key] }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch request.url.path {
        case "/.well-known/jwks.json":
            jwksFetches.withLock { $0 += 1 }
            let set = JWKSet(keys: published.withLock { $0 }.map(\.publicKey))
            return TransportResponse(status: 200, body: Data(set.jsonText().utf8))
        case "/oauth/device/code":
            let body: JSONObject = [
                "device_code": "device-1", "user_code": "ABCD-EFGH", "verification_uri": "https://tenant.example.com/activate",
                "expires_in": 900, "interval": 5,
            ]
            return TransportResponse(status: 200, body: Data(JSONValue.object(body).jsonBytes))
        case "/oauth/token":
            var body: JSONObject = [
                "access_token": "opaque-access", "token_type": "Bearer", "expires_in": "86400", "refresh_token": "opaque-refresh",
            ]
            if let token = idToken.withLock({ $0 }) { body["id_token"] = .string(token) }
            return TransportResponse(status: 200, body: Data(JSONValue.object(body).jsonBytes))
        default:
            return TransportResponse(status: 404)
        }
    }
}

@Suite("Auth0 ID-token validation: each claim, as Auth0.swift and no looser")
struct IDTokenValidationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let domain = "tenant.example.com"
    static let issuer = "https://tenant.example.com/"
    static let clientID = "client-1"

    static func claims() -> JSONObject {
        let now = now.timeIntervalSince1970
        return [
            "iss": .string(issuer), "sub": "auth0|alice", "aud": .string(clientID), "exp": .number(now + 3600), "iat": .number(now),
            "email": "alice@example.com",
        ]
    }

    private func login(_ tenant: CraftedTenant, organization: String? = nil) async throws -> AuthenticatedSession {
        let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID, organization: organization)
        let provider = Auth0Provider(configuration: configuration, transport: tenant, clock: ManualClock(now: Self.now))
        return try await provider.login(Auth0Credentials.password(username: "alice@example.com", password: "pw"), sessionDuration: nil, pending: nil)
    }

    private func refusal(
        _ claims: JSONObject, key: JWTKey? = nil, algorithm: JWSAlgorithm? = nil, header: JSONObject = [:]
    ) async throws -> Auth0IDTokenError? {
        let tenant = try CraftedTenant()
        tenant.idToken.withLock { $0 = try? JWT.sign(claims, key: key ?? tenant.key, algorithm: algorithm, extraHeader: header) }
        do {
            _ = try await login(tenant)
            return nil
        } catch let error as AuthError {
            #expect(error.code == .unrecoverable)
            #expect(error.providerCode == "id_token_invalid")
            return error.underlying as? Auth0IDTokenError
        }
    }

    @Test func aValidTokenGivesTheUserAndKeepsRawClaims() async throws {
        let tenant = try CraftedTenant()
        var claims = Self.claims()
        claims["session_expiry"] = .number(Self.now.timeIntervalSince1970 + 7200)
        tenant.idToken.withLock { $0 = try? JWT.sign(claims, key: tenant.key) }
        let session = try await login(tenant)
        #expect(session.user?.id == "auth0|alice")
        #expect(session.user?.raw["email"] == "alice@example.com")
        #expect(session.tokens.expiresAt == Self.now.addingTimeInterval(86_400), "expires_in as a numeric string")
        #expect(session.session?.expiresAt == Self.now.addingTimeInterval(7200 - 30))
        #expect(session.tokens.refreshToken == "opaque-refresh")
    }

    @Test(
        arguments: [
            ("iss", JSONValue.string("https://tenant.example.com"), "iss"),
            ("iss", nil, "iss"),
            ("sub", "", "sub"),
            ("sub", nil, "sub"),
            ("aud", "someone-else", "aud"),
            ("aud", nil, "aud"),
            ("aud", ["client-1", "api"], "azp"),
            ("exp", .number(1_800_000_000 - 61), "exp"),
            ("exp", nil, "exp"),
            ("iat", nil, "iat"),
            ("iat", "yesterday", "iat"),
            ("nbf", .number(1_800_000_000 + 86_400), "nbf"),
            ("iat", .number(1_800_000_000 + 365 * 86_400), "iat"),
            ("iat", .number(1_800_000_000 + 901), "iat"),
            ("nbf", .number(1_800_000_000 + 901), "nbf"),
        ] as [(String, JSONValue?, String)])
    func eachBadClaimIsNamed(_ name: String, _ value: JSONValue?, _ expected: String) async throws {
        var claims = Self.claims()
        claims[name] = value
        let error = try await refusal(claims)
        #expect(error?.claim == expected, "\(String(describing: error))")
    }

    @Test func expiryWithinTheLeewayPasses() async throws {
        var claims = Self.claims()
        claims["exp"] = .number(Self.now.timeIntervalSince1970 - 59)
        #expect(try await refusal(claims) == nil)
    }

    @Test func azpMatchingTheClientPassesWithSeveralAudiences() async throws {
        var claims = Self.claims()
        claims["aud"] = ["client-1", "api"]
        claims["azp"] = "client-1"
        #expect(try await refusal(claims) == nil)
        claims["azp"] = "other"
        #expect(try await refusal(claims)?.claim == "azp")
    }

    @Test func hs256IsRefused() async throws {
        let hmac = try JWTKey.hmac(Array("a-shared-secret-of-thirty-two-bytes!".utf8), algorithm: .hs256, keyID: "key-1")
        #expect(try await refusal(Self.claims(), key: hmac)?.claim == "alg")
    }

    @Test func aMissingKidIsRefused() async throws {
        // Even when the tenant publishes the key that signed it.
        let tenant = try CraftedTenant()
        let keyless = try JWTKey.generate(for: .rs256)
        tenant.published.withLock { $0 = [keyless] }
        tenant.idToken.withLock { $0 = try? JWT.sign(Self.claims(), key: keyless) }
        let error = await authError { _ = try await login(tenant) }
        #expect((error?.underlying as? Auth0IDTokenError)?.claim == "kid")
    }

    @Test func timesWithinTheLeewayPass() async throws {
        var claims = Self.claims()
        claims["nbf"] = .number(Self.now.timeIntervalSince1970 + 59)
        claims["iat"] = .number(Self.now.timeIntervalSince1970 + 59)
        #expect(try await refusal(claims) == nil)
    }

    @Test func aDeviceClockTenMinutesBehindStillTakesAFreshToken() async throws {
        // Auth0 made the token a moment ago on its clock, 600 s ahead of this device's.
        var claims = Self.claims()
        claims["nbf"] = .number(Self.now.timeIntervalSince1970 + 600)
        claims["iat"] = .number(Self.now.timeIntervalSince1970 + 600)
        claims["exp"] = .number(Self.now.timeIntervalSince1970 + 600 + 36_000)
        #expect(try await refusal(claims) == nil)
    }

    @Test func auth0sOwnClaimsCompareByCodeUnits() async throws {
        // "café" composed and decomposed are equal to `==`, not byte for byte.
        let tenant = try CraftedTenant()
        let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID)
        let keys = Auth0API(configuration: configuration, transport: tenant, clock: ManualClock(now: Self.now)).jwksCache()
        let check = IDTokenValidator(configuration: configuration, keys: keys, clock: ManualClock(now: Self.now))
        var claims = Self.claims()
        claims["org_name"] = "cafe\u{301}"
        claims["nonce"] = "n\u{e9}"
        let token = try JWT.sign(claims, key: tenant.key)
        for expectations in [IDTokenValidator.Expectations(organization: "caf\u{e9}"), IDTokenValidator.Expectations(nonce: "ne\u{301}")] {
            #expect("cafe\u{301}" == "caf\u{e9}", "equal to ==")
            let error = await authError { _ = try await check.validate(token, expectations) }
            #expect(error?.providerCode == "id_token_invalid")
        }
    }

    @Test func anAnswerWithoutAnIDTokenIsRefusedWhenANonceOrOrganizationWasSent() async throws {
        let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID)
        let provider = Auth0Provider(configuration: configuration, transport: try CraftedTenant(), clock: ManualClock(now: Self.now))
        let response = try #require(TokenResponse(["access_token": "a", "token_type": "Bearer", "expires_in": 3600]))
        for expectations in [IDTokenValidator.Expectations(nonce: "n-1"), IDTokenValidator.Expectations(organization: "org_1")] {
            let error = await authError { _ = try await provider.session(from: response, expectations: expectations, scope: nil, audience: nil) }
            #expect(error?.providerCode == "id_token_invalid")
            #expect((error?.underlying as? Auth0IDTokenError)?.claim == "id_token")
        }
        // Nothing was sent that needs one: a password grant's answer may lack it.
        _ = try await provider.session(from: response, scope: nil, audience: nil)
    }

    @Test func aDeviceLoginForAnOrganizationChecksTheIDTokensOrganization() async throws {
        func deviceLogin(_ claims: JSONObject?) async throws -> AuthError? {
            let tenant = try CraftedTenant()
            tenant.idToken.withLock { $0 = claims.flatMap { try? JWT.sign($0, key: tenant.key) } }
            let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID, organization: "org_123")
            let clock = ManualClock(now: Self.now)
            let provider = Auth0Provider(configuration: configuration, transport: tenant, clock: clock)
            let login = Task { _ = try await provider.login(Auth0Credentials.deviceCode { _ in }, sessionDuration: nil, pending: nil) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(5))
            return await authError { try await login.value }
        }
        var claims = Self.claims()
        claims["org_id"] = "org_456"
        #expect((try await deviceLogin(claims)?.underlying as? Auth0IDTokenError)?.claim == "org_id")
        #expect((try await deviceLogin(Self.claims())?.underlying as? Auth0IDTokenError)?.claim == "org_id")
        #expect((try await deviceLogin(nil)?.underlying as? Auth0IDTokenError)?.claim == "id_token")
        claims["org_id"] = "org_123"
        #expect(try await deviceLogin(claims) == nil)
    }

    @Test func aBadSignatureIsRefused() async throws {
        let impostor = try JWTKey.generate(for: .rs256, keyID: "key-1")
        #expect(try await refusal(Self.claims(), key: impostor)?.claim == "signature")
    }

    @Test func anUnknownKidRefetchesTheKeysOnce() async throws {
        let tenant = try CraftedTenant()
        let rotated = try JWTKey.generate(for: .rs256, keyID: "key-2")
        tenant.idToken.withLock { $0 = try? JWT.sign(Self.claims(), key: tenant.key) }
        let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID)
        let provider = Auth0Provider(configuration: configuration, transport: tenant, clock: ManualClock(now: Self.now))
        let credentials = Auth0Credentials.password(username: "alice@example.com", password: "pw")
        _ = try await provider.login(credentials, sessionDuration: nil, pending: nil)
        // The tenant rotates its key: the next token's kid is unknown, and one refetch finds it.
        tenant.published.withLock { $0 = [rotated, tenant.key] }
        tenant.idToken.withLock { $0 = try? JWT.sign(Self.claims(), key: rotated) }
        _ = try await provider.login(credentials, sessionDuration: nil, pending: nil)
        #expect(tenant.jwksFetches.withLock { $0 } == 2)
    }

    @Test func organizationByIDAndByName() async throws {
        let validator = { (organization: String, claims: JSONObject) async throws -> Auth0IDTokenError? in
            let tenant = try CraftedTenant()
            let token = try JWT.sign(claims, key: tenant.key)
            let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID)
            let keys = Auth0API(configuration: configuration, transport: tenant, clock: ManualClock(now: Self.now)).jwksCache()
            let check = IDTokenValidator(configuration: configuration, keys: keys, clock: ManualClock(now: Self.now))
            do {
                _ = try await check.validate(token, .init(organization: organization))
                return nil
            } catch let error as AuthError { return error.underlying as? Auth0IDTokenError }
        }
        var claims = Self.claims()
        claims["org_id"] = "org_123"
        #expect(try await validator("org_123", claims) == nil)
        #expect(try await validator("org_456", claims)?.claim == "org_id")
        claims["org_name"] = "acme"
        #expect(try await validator("ACME", claims) == nil)
        #expect(try await validator("other", claims)?.claim == "org_name")
        #expect(try await validator("acme", Self.claims())?.claim == "org_name")
    }

    @Test func nonceAndMaxAge() async throws {
        let tenant = try CraftedTenant()
        let configuration = try Auth0Configuration(domain: Self.domain, clientID: Self.clientID)
        let keys = Auth0API(configuration: configuration, transport: tenant, clock: ManualClock(now: Self.now)).jwksCache()
        let check = IDTokenValidator(configuration: configuration, keys: keys, clock: ManualClock(now: Self.now))
        func claim(_ claims: JSONObject, _ expectations: IDTokenValidator.Expectations) async throws -> String? {
            do {
                _ = try await check.validate(try JWT.sign(claims, key: tenant.key), expectations)
                return nil
            } catch let error as AuthError { return (error.underlying as? Auth0IDTokenError)?.claim }
        }
        var claims = Self.claims()
        #expect(try await claim(claims, .init(nonce: "n-1")) == "nonce")
        claims["nonce"] = "n-2"
        #expect(try await claim(claims, .init(nonce: "n-1")) == "nonce")
        claims["nonce"] = "n-1"
        #expect(try await claim(claims, .init(nonce: "n-1")) == nil)
        #expect(try await claim(claims, .init(maxAge: 300)) == "auth_time")
        claims["auth_time"] = .number(Self.now.timeIntervalSince1970 - 300 - 61)
        #expect(try await claim(claims, .init(maxAge: 300)) == "auth_time")
        claims["auth_time"] = .number(Self.now.timeIntervalSince1970 - 300 - 59)
        #expect(try await claim(claims, .init(maxAge: 300)) == nil)
    }
}

@Suite("Auth0 wire details")
struct WireTests {
    @Test func expiresInReadsNumbersAndStringsAndClamps() throws {
        func parse(_ value: JSONValue) -> TimeInterval? {
            TokenResponse(["access_token": "a", "expires_in": value])?.expiresIn
        }
        #expect(parse(86_400) == 86_400)
        #expect(parse("3600") == 3600)
        #expect(parse(.number(1e300)) == 315_360_000)
        #expect(parse(.number(-5)) == 0)
        #expect(parse("soon") == nil)
        #expect(parse(.bool(true)) == nil)
    }

    @Test func rateLimitResetIsMeasuredAgainstTheAnswersDateAndClamped() {
        // The local clock is 10 minutes ahead of Auth0's: it plays no part in the wait.
        let now = Date(timeIntervalSince1970: 1_800_000_600)
        var response = TransportResponse(
            status: 429, headers: ["Date": "Fri, 15 Jan 2027 08:00:00 GMT", "x-ratelimit-reset": "1800000030"],
            body: Data(#"{"error":"too_many_requests"}"#.utf8))
        #expect(Auth0ErrorResponse(response).rateLimitReset == Date(timeIntervalSince1970: 1_800_000_030))
        #expect(Auth0ErrorResponse(response).classified(.refresh, now: now).retryAfter == .seconds(30))
        response.headers["x-ratelimit-reset"] = "99999999999"
        #expect(Auth0ErrorResponse(response).classified(.refresh, now: now).retryAfter == .seconds(86_400), "capped to a day")
        response.headers["x-ratelimit-reset"] = "1799999990"
        #expect(Auth0ErrorResponse(response).classified(.refresh, now: now).retryAfter == .zero, "a reset already past")
        for absurd in ["-1", "99999999999999999999999", "1e308", "nan", "soon"] {
            response.headers["x-ratelimit-reset"] = absurd
            #expect(Auth0ErrorResponse(response).classified(.refresh, now: now).retryAfter == nil, "\(absurd)")
        }
        response.headers["x-ratelimit-reset"] = "1800000030"
        response.headers["Date"] = nil
        let undated = Auth0ErrorResponse(response).classified(.refresh, now: now)
        #expect(undated.code == .rateLimited)
        #expect(undated.retryAfter == nil, "no Date: nothing relates the reset to this clock; the core backs off on its own")
    }

    @Test func nonJSONErrorsAreTransient() {
        let now = Date()
        let response = TransportResponse(status: 403, body: Data("<html>Forbidden by proxy</html>".utf8))
        let error = Auth0ErrorResponse(response).classified(.refresh, now: now)
        #expect(error.code == .transient)
        #expect(error.httpStatus == 403)
    }

    @Test func settingsAreChecked() throws {
        let registry = ProviderRegistry()
        registry.register(Auth0Provider.factory)
        #expect(registry.identifiers == ["auth0"])
        let good = try Auth0Configuration(settings: ["domain": "tenant.eu.auth0.com", "client_id": "c", "scope": "profile"])
        #expect(good.baseURL.absoluteString == "https://tenant.eu.auth0.com/")
        #expect(good.issuer == "https://tenant.eu.auth0.com/")
        #expect(good.scope == "openid profile")
        #expect(good.leeway == 60)
        #expect(Auth0Configuration.withOpenID(Auth0Configuration.defaultScope) == "openid profile email offline_access")
        #expect(throws: AuthError.self) { try Auth0Configuration(settings: ["domain": "d", "client_id": "c", "base_url": "http://example.com"]) }
        let loopback = try Auth0Configuration(settings: ["domain": "d", "client_id": "c", "base_url": "http://127.0.0.1:8080", "leeway_seconds": "5"])
        #expect(loopback.endpoint("oauth/token").absoluteString == "http://127.0.0.1:8080/oauth/token")
        #expect(loopback.leeway == 5)
        let warnings = try Auth0Configuration.schema.check(
            ProviderSettings(
                ["domain": "d", "client_id": "c", "client_secret": "s"],
                provider: "auth0", inlineKeys: ["client_secret"]))
        #expect(warnings.count == 1)
        #expect(throws: AuthError.self) { try Auth0Configuration.schema.check(ProviderSettings(["domain": "d"], provider: "auth0")) }
    }
}
