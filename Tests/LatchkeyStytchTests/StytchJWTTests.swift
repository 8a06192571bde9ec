import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// Local session-JWT checks through the JWKS cache, across a key rotation.
@Suite struct StytchJWTTests {
    static let jwks = EmulatorRoute(.stytch, "GET", "/v1/sessions/jwks/{project_id}")
    static let b2bJWKS = EmulatorRoute(.stytch, "GET", "/v1/b2b/sessions/jwks/{project_id}")

    @Test func verifiesLocallyAndFollowsAKeyRotation() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let adapter = try #require(harness.client.stytch)
            let first = try await harness.client.accessToken()
            let claims = try await adapter.verifySessionJWT(first)
            #expect(claims.subject == harness.client.currentUser?.id)
            #expect(claims.sessionID == harness.client.currentSession?.id)
            #expect(claims.issuer == "stytch.com/\(harness.endpoint.projectID)")
            #expect(claims.expiresAt == harness.clock.now.addingTimeInterval(300))
            #expect(claims.sessionExpiresAt == harness.client.currentSession?.expiresAt)
            _ = try await adapter.verifySessionJWT(first)
            #expect(await harness.emulator.control.count(Self.jwks) == 1, "the key set is cached")

            let kid = try await harness.emulator.control.rotateSigningKeys(.stytch)
            harness.advance(by: 5)
            try await harness.client.renew()
            let second = try await harness.client.accessToken()
            #expect(try JWT.decode(second).header.keyID == kid)
            _ = try await adapter.verifySessionJWT(second)
            #expect(await harness.emulator.control.count(Self.jwks) == 2, "an unknown kid refetches once")
            _ = try await adapter.verifySessionJWT(first)  // the retired key is still published (overlap)

            harness.advance(by: 400)
            let expired = await authError { _ = try await adapter.verifySessionJWT(second) }
            #expect(expired?.code == .renewAndRecheck)
            #expect(expired?.providerCode == "expired")
            let forged = await authError { _ = try await adapter.verifySessionJWT(first.dropLast(4) + "AAAA") }
            #expect(forged?.code == .renewAndRecheck)
        }
    }

    @Test func b2bChecksAgainstTheB2BKeySetAndReadsTheOrganization() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            try await harness.client.login(
                StytchB2BCredentials.password(
                    organizationID: B2B.acme, emailAddress: "bob@acme.example",
                    password: "bob-password-1"))
            let claims = try await #require(harness.client.stytchB2B).verifySessionJWT(try await harness.client.accessToken())
            #expect(claims.subject == B2B.bob)
            #expect(claims.organizationID == B2B.acme)
            #expect(claims.organizationSlug == "acme")
            #expect(await harness.emulator.control.count(Self.b2bJWKS) == 1)
        }
    }

    @Test func aCheckNeedsTheProjectID() async throws {
        let settings = try StytchConfiguration(publicToken: "public-token-test-1", appIdentifier: "dev.latchkey.example")
        let provider = StytchProvider(configuration: settings, transport: FixedTransport(response: TransportResponse(status: 500)))
        let error = await authError { _ = try await provider.verifySessionJWT("a.b.c") }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("settings.project_id") == true)
    }
}

/// The settings schema and the registry.
@Suite struct StytchSettingsTests {
    @Test func thePublicTokenPicksTheHost() throws {
        #expect(
            try StytchConfiguration(publicToken: "public-token-test-abc", appIdentifier: "dev.latchkey.example").baseURL.absoluteString
                == "https://test.stytch.com/")
        #expect(
            try StytchConfiguration(publicToken: "public-token-live-abc", appIdentifier: "dev.latchkey.example").baseURL.absoluteString
                == "https://api.stytch.com/")
        #expect(try StytchConfiguration(publicToken: "public-token-live-abc", appIdentifier: "dev.latchkey.example").isTestProject == false)
        let emulator = try StytchConfiguration(
            publicToken: "public-token-test-abc", appIdentifier: "dev.latchkey.example", baseURL: URL(string: "http://127.0.0.1:9/sdk/v1/"))
        #expect(emulator.baseURL.absoluteString == "http://127.0.0.1:9/")
        #expect(
            try StytchConfiguration(
                publicToken: "public-token-test-a", appIdentifier: "dev.latchkey.example", customDomain: "https://login.example.com/"
            ).customDomain
                == "https://login.example.com")
    }

    @Test(arguments: ["", "public-token-test-", "public-token-dev-abc", "secret-test-abc"])
    func aMalformedPublicTokenIsAConfigurationError(_ token: String) {
        #expect(throws: AuthError.self) { try StytchConfiguration(publicToken: token, appIdentifier: "dev.latchkey.example") }
    }

    @Test func theRegistryChecksTheSchema() throws {
        let registry = ProviderRegistry()
        registry.register(StytchProvider.factory)
        registry.register(StytchB2BProvider.factory)
        #expect(registry.identifiers == ["stytch", "stytch-b2b"])
        let store = try LatchkeySecretsProbe.memory()
        func build(_ settings: [String: String]) throws -> any AuthProvider {
            try registry.makeProvider(LatchkeyConfiguration(provider: "stytch", settings: ProviderSettings(settings)), store: store)
        }
        let missing = #expect(throws: AuthError.self) { try build([:]) }
        #expect(missing?.message.contains("public_token") == true)
        // No default app identifier: Stytch takes only one registered for the project.
        let noApp = #expect(throws: AuthError.self) { try build(["public_token": "public-token-test-1"]) }
        #expect(noApp?.code == .configuration)
        #expect(noApp?.message.contains("app_identifier") == true)
        let blank = #expect(throws: AuthError.self) { try StytchConfiguration(publicToken: "public-token-test-1", appIdentifier: " ") }
        #expect(blank?.message.contains("Authorized environments") == true)
        let typo = #expect(throws: AuthError.self) { try build(["public_token": "public-token-test-1", "app_identifier": "a", "projectid": "p"]) }
        #expect(typo?.message.contains("projectid") == true)
        let malformed = #expect(throws: AuthError.self) { try build(["public_token": "nope", "app_identifier": "a"]) }
        #expect(malformed?.code == .configuration)
        let boolean = #expect(throws: AuthError.self) {
            try build(["public_token": "public-token-test-1", "app_identifier": "a", "auto_extend": "maybe"])
        }
        #expect(boolean?.message.contains("auto_extend") == true)
        let provider = try build([
            "public_token": "public-token-test-1", "app_identifier": "dev.latchkey.example", "auto_extend": "yes",
            "project_id": "project-test-1",
        ])
        #expect(provider.identifier == "stytch")
        #expect(provider.sessionDurationBounds == .seconds(300) ... .seconds(527_040 * 60))
        #expect((provider as? StytchProvider)?.configuration.autoExtend == true)
    }
}
