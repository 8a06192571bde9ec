import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import LatchkeySocialPlus
import Testing

/// Access-token login: a JWT with a `userId` claim from the app's backend; an
/// access-token handler must be registered first, and renewals ask it. There is no
/// exchange with social.plus: the JWT is the bearer, checked with the user lookup.
@Suite struct AccessTokenLoginTests {
    @Test func loginWithAHandlerRegisteredAtRuntimeAndRenewalAsksIt() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let asked = Counter()
            let control = harness.emulator.control
            try harness.provider.register(
                accessTokenHandler: SocialPlusAccessTokenRenewer { userID in
                    asked.increment()
                    return try control.signSocialPlusAccessToken(userID: userID)
                })
            try await harness.client.start()
            let jwt = try control.signSocialPlusAccessToken(userID: "alice")
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            #expect(harness.client.currentUser?.name == "Alice")
            // The JWT itself is the bearer: no session creation, one user check with it.
            #expect(await harness.logins() == 0)
            #expect(await harness.userChecks() == 1)
            let check = try #require(harness.transport.requests.last)
            #expect(check.method == "GET")
            #expect(check.url.path.hasSuffix("/api/v3/users/alice"))
            #expect(check.headers["Authorization"] == "Bearer \(jwt)")
            #expect(try await harness.client.accessToken() == jwt)
            #expect(asked.count == 0)
            // Scheduled from the JWT's lifetime (3,600 s) started at local receipt.
            #expect(harness.client.currentSession?.expiresAt == SocialPlusHarness.start.addingTimeInterval(3600))

            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2640)
            await settle("renewed") { await harness.userChecks() == 2 }
            #expect(asked.count == 1)
            await settle("established") { harness.client.currentSession?.startedAt != SocialPlusHarness.start }
            #expect(harness.client.state == .established)
            let renewed = try await harness.client.accessToken()
            #expect(renewed != jwt)
            #expect(harness.transport.requests.last?.headers["Authorization"] == "Bearer \(renewed)")
            #expect(await harness.logins() == 0)
            #expect(!harness.logs.all.joined().contains(jwt))
        }
    }

    @Test func aJWTWithoutIssuedAtSchedulesNothingFromTheBackendsClock() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { try control.signSocialPlusAccessToken(userID: $0) })
            try await harness.client.start()
            // Only `exp`, an absolute time on the backend's clock: no lifetime to start locally.
            let key = try JWTKey.hmac(Array(SocialPlusSeed.standard.accessTokenSecret.utf8), algorithm: .hs256)
            let jwt = try JWT.sign(["userId": "alice", "exp": .number(SocialPlusHarness.start.timeIntervalSince1970 + 3600)], key: key)
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentSession?.expiresAt == nil)
        }
    }

    @Test func theOldExchangeOfTheJWTAsAnAuthTokenIsRefused() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let jwt = try harness.emulator.control.signSocialPlusAccessToken(userID: "alice")
            #expect(jwt.count > 100)
            let exchange: JSONObject = [
                "userId": "alice", "authToken": .string(jwt), "deviceId": "device-1",
                "deviceInfo": .object(["kind": "web", "sdkVersion": "x"]),
            ]
            let answer = try await URLSessionTransport().send(
                TransportRequest(
                    method: "POST", url: harness.endpoint.baseURL.appending(path: "api/v5/sessions"),
                    headers: ["Content-Type": "application/json", "X-API-Key": harness.endpoint.apiKey],
                    body: Data(JSONValue.object(exchange).jsonBytes)))
            #expect(answer.status == 400)
            #expect(try JSONValue.parse(bytes: Array(answer.body))["code"] == 400_000)
        }
    }

    @Test func secureLogoutEndsTheJWTsUse() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { try control.signSocialPlusAccessToken(userID: $0) })
            try await harness.client.start()
            let jwt = try control.signSocialPlusAccessToken(userID: "alice")
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.emulator.control.count(SocialPlusHarness.logoutRoute) == 1)
            let reuse = try await URLSessionTransport().send(
                TransportRequest(
                    url: harness.endpoint.baseURL.appending(path: "api/v3/users/alice"),
                    headers: ["Authorization": "Bearer \(jwt)"]))
            #expect(reuse.status == 401)
        }
    }

    @Test func aHandlerGivenAsADependencyServesARestoredSession() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            let handler = SocialPlusAccessTokenRenewer { try control.signSocialPlusAccessToken(userID: $0) }
            try harness.provider.register(accessTokenHandler: handler)
            try await harness.client.start()
            let jwt = try control.signSocialPlusAccessToken(userID: "alice")
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            await harness.client.shutdown()

            var dependencies = ProviderDependencies()
            dependencies[SocialPlusAccessTokenHandlerKey.self] = handler
            let restarted = try harness.restarted(dependencies: dependencies)
            try await restarted.start()
            await harness.advance(by: 1)
            try await restarted.renew()
            #expect(await harness.logins() == 0)
            #expect(try await restarted.accessToken() != jwt)
            #expect(restarted.state == .established)
            await restarted.shutdown()
        }
    }

    @Test func withoutAHandlerTheLoginFailsBeforeAnyRequest() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try await harness.client.start()
            let jwt = try harness.emulator.control.signSocialPlusAccessToken(userID: "alice")
            let error = await authError { try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt)) }
            #expect(error?.code == .invalidState)
            #expect(error?.message.contains("access-token handler") == true)
            #expect(await harness.logins() == 0)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test(arguments: ["not-a-jwt", "a.b.c", ""])
    func aTokenThatIsNotAJWTIsRefusedLocally(token: String) async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { _ in "unused" })
            try await harness.client.start()
            let error = await authError { try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: token)) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message == "the social.plus access token is not a JWT")
            #expect(await harness.logins() == 0)
        }
    }

    @Test(arguments: [["sub": "alice"], ["userId": 42], ["userId": ""], ["userId": .string(String(repeating: "u", count: 51))]] as [JSONObject])
    func aJWTWithoutAUsableUserIdClaimIsRefusedLocally(claims: JSONObject) async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { _ in "unused" })
            try await harness.client.start()
            let token = try JWT.sign(claims, key: try JWTKey.hmac(Array("a-secret-of-sufficient-length-0123456789abc".utf8), algorithm: .hs256))
            let error = await authError { try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: token)) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("userId") == true)
            #expect(await harness.logins() == 0)
        }
    }

    @Test func aJWTTheServerRefusesEndsTheLogin() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { _ in "unused" })
            try await harness.client.start()
            let forged = try JWT.sign(
                ["userId": "alice"], key: try JWTKey.hmac(Array("a-secret-of-sufficient-length-0123456789abc".utf8), algorithm: .hs256))
            let error = await authError { try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: forged)) }
            #expect(error?.terminationReason == .unauthorized)
            #expect(error?.httpStatus == 401)
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.userChecks() == 1)
        }
    }

    @Test func aRenewedJWTTheServerRefusesKeepsTheSessionAndAsksAgainInTenMinutes() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let forgedKey = try JWTKey.hmac(Array("a-secret-of-sufficient-length-0123456789abc".utf8), algorithm: .hs256)
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { try JWT.sign(["userId": .string($0)], key: forgedKey) })
            try await harness.client.start()
            let jwt = try harness.emulator.control.signSocialPlusAccessToken(userID: "alice")
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            let error = await authError { try await harness.client.renew() }
            #expect(error?.code == .transient)
            #expect(error?.retryAfter == .seconds(600))
            #expect(harness.client.state == .established)
            #expect(try await harness.client.accessToken() == jwt)
        }
    }

    @Test func aFailingOrMismatchedHandlerPostponesTheRenewalByTenMinutes() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            let calls = Counter()
            try harness.provider.register(
                accessTokenHandler: SocialPlusAccessTokenRenewer { _ in
                    switch calls.increment() {
                    case 1: throw CancellationError()
                    case 2: return try control.signSocialPlusAccessToken(userID: "bob")
                    default: return try control.signSocialPlusAccessToken(userID: "alice")
                    }
                })
            try await harness.client.start()
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: try control.signSocialPlusAccessToken(userID: "alice")))
            for _ in 0..<2 {
                let error = await authError { try await harness.client.renew() }
                #expect(error?.code == .transient)
                #expect(error?.retryAfter == .seconds(600))
                #expect(harness.client.state == .established)
            }
            try await harness.client.renew()
            #expect(await harness.userChecks() == 2)
            #expect(await harness.logins() == 0)
        }
    }
}
