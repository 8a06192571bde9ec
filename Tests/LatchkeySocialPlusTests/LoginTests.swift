import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeySecrets
import LatchkeySocialPlus
import Testing

/// Login over real HTTP: the documented body, the session objects, secure mode, the
/// length limits (checked before any request) and the device ID.
@Suite struct LoginTests {
    @Test func loginWithoutAuthTokenEstablishesTheSession() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            #expect(harness.client.state == .established)
            let user = try #require(harness.client.currentUser)
            #expect(user.id == "alice")
            #expect(user.name == "Alice")
            #expect(user.status == "active")
            #expect(user.raw["isGlobalBanned"] == false)
            let session = try #require(harness.client.currentSession)
            #expect(session.id == nil)
            #expect(session.userID == "alice")
            #expect(session.startedAt == SocialPlusHarness.start)
            #expect(session.expiresAt == SocialPlusHarness.start.addingTimeInterval(3600))

            let body = try #require(harness.loginBodies().first)
            #expect(body.names == ["userId", "displayName", "deviceId", "deviceInfo"])
            #expect(body["userId"] == "alice")
            #expect(body["deviceInfo"] == .object(["kind": "web", "model": "linux", "sdkVersion": "latchkey-swift/0.1"]))
            let deviceID = try #require(body["deviceId"]?.stringValue)
            #expect(try await harness.provider.deviceID() == deviceID)
            let login = try #require(harness.transport.requests.first)
            #expect(login.headers["X-API-Key"] == harness.endpoint.apiKey)

            // Every later call carries the bearer token.
            let token = try await harness.client.accessToken()
            let response = try await harness.client.send(harness.userRequest("bob"))
            #expect(response.status == 200)
            #expect(harness.transport.requests.last?.headers["Authorization"] == "Bearer \(token)")
        }
    }

    @Test func secureModeLogsInWithABackendMintedAuthToken() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try await harness.client.start()
            let authToken = try await harness.mintAuthToken()
            try await harness.login(authToken: authToken)
            #expect(harness.client.state == .established)
            #expect(harness.loginBodies().first?["authToken"]?.stringValue == authToken)
            #expect(!harness.logs.all.joined().contains(authToken))
        }
    }

    @Test func secureModeRefusesAMissingOrExpiredAuthToken() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try await harness.client.start()
            let missing = await authError { try await harness.login() }
            #expect(missing?.code == .terminated)
            #expect(missing?.terminationReason == .unauthorized)
            #expect(missing?.providerCode == "400100")
            #expect(missing?.httpStatus == 401)
            #expect(missing?.message.contains("secure mode") == true)
            #expect(harness.client.state == .notLoggedIn)

            let late = try await harness.mintAuthToken()
            await harness.advance(by: 601)
            let expired = await authError { try await harness.login(authToken: late) }
            #expect(expired?.terminationReason == .unauthorized)
            #expect(harness.client.state == .notLoggedIn)
            // The state is clean for the next try.
            try await harness.login(authToken: try await harness.mintAuthToken())
            #expect(harness.client.state == .established)
        }
    }

    @Test(arguments: [
        (SocialPlusLogin(userID: String(repeating: "u", count: 51)), "userId must be at most 50 characters; got 51"),
        (SocialPlusLogin(userID: ""), "userId must not be empty"),
        (SocialPlusLogin(userID: "alice", displayName: String(repeating: "n", count: 51)), "displayName must be at most 50 characters; got 51"),
        (SocialPlusLogin(userID: "alice", authToken: String(repeating: "t", count: 101)), "authToken must be at most 100 characters; got 101"),
    ])
    func lengthLimitsAreCheckedBeforeAnyRequest(credentials: SocialPlusLogin, message: String) async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            let error = await authError { try await harness.client.login(credentials) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.hasPrefix(message) == true)
            #expect(await harness.logins() == 0)
            #expect(harness.client.state == .notLoggedIn)
            if let authToken = credentials.authToken { #expect(error?.message.contains(authToken) == false) }
        }
    }

    @Test(arguments: [".", ".."])
    func aDotSegmentUserIDNeverReachesAPath(userID: String) async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            let login = await authError { try await harness.client.login(SocialPlusLogin(userID: userID)) }
            #expect(login?.code == .invalidArgument)
            #expect(login?.message.contains("dot segment") == true)
            let hydrate = await authError {
                try await harness.client.update(tokens: SessionTokens(accessToken: "a-token", attributes: ["user_id": userID]))
            }
            #expect(hydrate?.code == .invalidArgument)
            let issuer = await authError { _ = try await harness.mintAuthToken(userID) }
            #expect(issuer?.code == .invalidArgument)
            // Nothing was sent: `users/..` would have carried the bearer token to `/api/v3/`.
            #expect(harness.transport.requests.isEmpty)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func aUserIDIsOnePathSegment() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            for userID in ["a/..", "x?y#z", "50%", "..."] {
                try await harness.client.login(SocialPlusLogin(userID: userID))
                // New tokens for an established session are checked with the user lookup.
                let token = try await harness.client.accessToken()
                try await harness.client.update(tokens: SessionTokens(accessToken: token, attributes: ["user_id": userID]))
                #expect(harness.client.currentUser?.id == userID)
                let check = try #require(harness.transport.requests.last)
                #expect(check.url.path(percentEncoded: true).hasPrefix("/api/v3/users/"))
                #expect(check.url.path(percentEncoded: true).split(separator: "/").count == 4)
                try await harness.client.logout()
            }
        }
    }

    @Test func limitsAtTheEdgeAreAccepted() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login(String(repeating: "u", count: 50), displayName: String(repeating: "é", count: 50))
            #expect(harness.client.state == .established)
        }
    }

    @Test func theDeviceIDSurvivesLogoutAndRestartButNotANewStore() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            try await harness.client.logout()
            try await harness.login()
            let restarted = try harness.restarted()
            try await restarted.start()
            try await restarted.logout()
            try await restarted.login(SocialPlusLogin(userID: "bob"))
            let ids = harness.loginBodies().compactMap { $0["deviceId"]?.stringValue }
            #expect(ids.count == 3)
            #expect(Set(ids).count == 1)
            #expect(ids[0].count <= 150)
            #expect(try await harness.store.string("provider.socialplus.device_id") == ids[0])

            let fresh = try harness.restarted(store: try MemorySecretStore(namespace: "another"))
            try await fresh.login(SocialPlusLogin(userID: "bob"))
            #expect(harness.loginBodies().last?["deviceId"]?.stringValue != ids[0])
            await restarted.shutdown()
            await fresh.shutdown()
        }
    }

    @Test func otherCredentialsAreRefused() async throws {
        struct Password: LoginCredentials {}
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            let error = await authError { try await harness.client.login(Password()) }
            #expect(error?.code == .unsupportedCredentials)
            #expect(await harness.logins() == 0)
        }
    }

    @Test func credentialsAndConfigurationHideTheirSecrets() throws {
        let login = SocialPlusLogin(userID: "alice", authToken: "secret-auth-token")
        #expect(!"\(login)".contains("secret-auth-token"))
        var dumped = ""
        dump(login, to: &dumped)
        #expect(!dumped.contains("secret-auth-token"))
        let accessLogin = SocialPlusAccessTokenLogin(accessToken: "a.b.c")
        dumped = ""
        dump(accessLogin, to: &dumped)
        #expect(!"\(accessLogin)".contains("a.b.c"))
        #expect(!dumped.contains("a.b.c"))
        let configuration = try SocialPlusConfiguration(apiKey: "the-api-key")
        #expect(!"\(configuration)".contains("the-api-key"))
        #expect(!"\(SocialPlusRenewalAnswer.renewWithAuthToken("tok-123"))".contains("tok-123"))
        #expect(!"\(SocialPlusAuthTokenIssuer(serverKey: "server-key-1"))".contains("server-key-1"))
    }
}
