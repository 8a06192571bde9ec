import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeyJSON
import LatchkeySocialPlus
import Testing

/// Access-token login: a JWT with a `userId` claim from the app's backend; an
/// access-token handler must be registered first, and renewals ask it.
@Suite struct AccessTokenLoginTests {
    @Test func loginWithAHandlerRegisteredAtRuntimeAndRenewalAsksIt() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let asked = Counter()
            let control = harness.emulator.control
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { userID in
                asked.increment()
                return try control.signSocialPlusAccessToken(userID: userID)
            })
            try await harness.client.start()
            let jwt = try control.signSocialPlusAccessToken(userID: "alice")
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: jwt))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            #expect(harness.loginBodies().first?["userId"] == "alice")
            #expect(asked.count == 0)

            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2640)
            await settle("renewed") { await harness.logins() == 2 }
            #expect(asked.count == 1)
            await settle("established") { harness.client.currentSession?.startedAt != SocialPlusHarness.start }
            #expect(harness.client.state == .established)
            #expect(!harness.logs.all.joined().contains(jwt))
        }
    }

    @Test func aHandlerGivenAsADependencyServesARestoredSession() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            let handler = SocialPlusAccessTokenRenewer { try control.signSocialPlusAccessToken(userID: $0) }
            try harness.provider.register(accessTokenHandler: handler)
            try await harness.client.start()
            try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: try control.signSocialPlusAccessToken(userID: "alice")))
            await harness.client.shutdown()

            var dependencies = ProviderDependencies()
            dependencies[SocialPlusAccessTokenHandlerKey.self] = handler
            let restarted = try harness.restarted(dependencies: dependencies)
            try await restarted.start()
            try await restarted.renew()
            #expect(await harness.logins() == 2)
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
            let forged = try JWT.sign(["userId": "alice"], key: try JWTKey.hmac(Array("a-secret-of-sufficient-length-0123456789abc".utf8), algorithm: .hs256))
            let error = await authError { try await harness.client.login(SocialPlusAccessTokenLogin(accessToken: forged)) }
            #expect(error?.terminationReason == .unauthorized)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func aFailingOrMismatchedHandlerPostponesTheRenewalByTenMinutes() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let control = harness.emulator.control
            let calls = Counter()
            try harness.provider.register(accessTokenHandler: SocialPlusAccessTokenRenewer { _ in
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
            #expect(await harness.logins() == 2)
        }
    }
}
