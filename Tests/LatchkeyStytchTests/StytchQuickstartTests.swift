import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySecrets
import LatchkeyStytch
import Testing

/// The code of Docs/stytch-quickstart.md, compiled and run against the emulator (the
/// configuration points at it; the store is in memory instead of the automatic one).
@Suite struct StytchQuickstartTests {
    @Test func consumer() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
        defer { Task { await emulator.stop() } }
        let stytch = try #require(emulator.stytch)
        let (email, password) = ("alice@example.com", "alice-password-1")

        let registry = ProviderRegistry()
        registry.register(StytchProvider.factory)
        let configuration = LatchkeyConfiguration(
            provider: "stytch",
            settings: [
                "public_token": stytch.publicToken, "project_id": stytch.projectID, "app_identifier": stytch.appIdentifier,
                "base_url": stytch.baseURL.absoluteString,
            ])
        let client = try registry.makeClient(configuration, store: try MemorySecretStore(namespace: "quickstart"))
        try await client.start()
        if client.state == .notLoggedIn {
            try await client.login(StytchCredentials.password(email: email, password: password), sessionDuration: .seconds(7 * 24 * 3600))
        }
        #expect(client.currentUser?.email == email)
        let jwt = try await client.accessToken()
        let claims = try await client.stytch?.verifySessionJWT(jwt)
        #expect(claims?.subject == client.currentUser?.id)
        try await client.renew(sessionDuration: .seconds(30 * 24 * 3600))
        try await client.logout(revoke: .required)
        #expect(client.state == .notLoggedIn)
        await client.shutdown()
    }

    @Test func b2bWithMFA() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
        defer { Task { await emulator.stop() } }
        let stytch = try #require(emulator.stytch)
        let (organizationID, email, password) = (emulator.seed.stytch.organizations[0].organizationID, "carol@acme.example", "carol-password-1")

        let registry = ProviderRegistry()
        registry.register(StytchB2BProvider.factory)
        let client = try registry.makeClient(
            LatchkeyConfiguration(
                provider: "stytch-b2b",
                settings: [
                    "public_token": stytch.publicToken, "app_identifier": stytch.appIdentifier,
                    "base_url": stytch.baseURL.absoluteString,
                ]),
            store: try MemorySecretStore(namespace: "quickstart-b2b"))
        do {
            try await client.login(StytchB2BCredentials.password(organizationID: organizationID, emailAddress: email, password: password))
        } catch let error as AuthError where error.code == .needsUserAction {
            let action = try #require(client.pendingUserAction)
            try await client.stytchB2B?.sendSMSOTP(for: action)
            let codeFromTheUser = try #require(
                try await emulator.control.stytchSMSCode(memberID: action.requirements?["member_id"]?.stringValue ?? ""))
            try await client.login(StytchB2BCredentials.smsOTP(code: codeFromTheUser))
        }
        #expect(client.currentOrganization?.name == "Acme")
        #expect(client.currentMember?.email == email)
        await client.shutdown()
    }
}
