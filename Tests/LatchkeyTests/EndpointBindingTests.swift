import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// The scripted provider under another endpoint identity: the same server in memory,
/// configured with another base URL (or public token, client ID, API key).
struct EndpointProvider: AuthProvider {
    let base: ScriptedProvider
    let endpoint: EndpointIdentity

    init(_ base: ScriptedProvider, _ components: [EndpointIdentity.Component]) {
        self.base = base
        endpoint = EndpointIdentity(provider: base.identifier, components)
    }

    var identifier: String { base.identifier }

    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        try await base.login(credentials, sessionDuration: sessionDuration, pending: pending)
    }

    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession { try await base.validate(current) }

    func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        try await base.renew(request, current: current, preparation: preparation)
    }

    func revoke(_ current: AuthenticatedSession) async throws { try await base.revoke(current) }

    func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation {
        try await base.prepareRenewal(request, current: current)
    }

    func renewalPlan(for tokens: SessionTokens) -> RenewalPlan { base.renewalPlan(for: tokens) }
}

/// A stored session is bound to the endpoint that made it: a client configured for
/// another endpoint neither sends its credentials nor clears it, and says which setting
/// differs.
@Suite(.noSecretLeaks) struct EndpointBindingTests {
    static let home: [EndpointIdentity.Component] = [.init("base_url", "https://api.example.com/"), .init("public_token", "public-token-live-1")]
    static let clone: [EndpointIdentity.Component] = [.init("base_url", "http://127.0.0.1:9/"), .init("public_token", "public-token-live-1")]

    func client(_ harness: Harness, _ components: [EndpointIdentity.Component]) -> AuthClient {
        let client = AuthClient(
            provider: EndpointProvider(harness.provider, components), store: harness.store,
            options: SessionOptions(heartbeatInterval: nil), transport: harness.api, clock: harness.clock,
            logger: harness.logs.logger)
        SecretLedger.current?.watch(client)
        return client
    }

    @Test func anotherEndpointNeitherValidatesNorClearsTheStoredSession() async throws {
        let harness = try Harness()
        let home = client(harness, Self.home)
        try await home.start()
        try await home.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        await home.shutdown()
        let stored = try await harness.storedRecord()

        let clone = client(harness, Self.clone)
        try await clone.start()
        #expect(clone.state == .notLoggedIn)
        #expect(harness.provider.counts.validate == 0, "nothing was sent with the stored session")
        let conflict = try #require(await clone.storedSessionConflict)
        #expect(conflict.code == .vaultIncompatible)
        #expect(conflict.message.contains("\"base_url\""), "\(conflict.message)")
        #expect(conflict.message.contains("https://api.example.com/") && conflict.message.contains("http://127.0.0.1:9/"))
        #expect(!conflict.message.contains("public_token"), "only the setting that differs")
        await #expect(throws: AuthError.self) { _ = try await clone.accessToken() }
        try await clone.logout()
        await clone.shutdown()
        #expect(try await harness.storedRecord() == stored, "a logout elsewhere does not end this session")

        let again = client(harness, Self.home)
        try await again.start()
        #expect(again.state == .established)
        #expect(await again.storedSessionConflict == nil)
        await again.shutdown()
    }

    @Test func anotherPublicTokenIsAnotherEndpoint() async throws {
        let harness = try Harness()
        let home = client(harness, Self.home)
        try await home.start()
        try await home.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        await home.shutdown()
        let other = client(harness, [.init("base_url", "https://api.example.com/"), .init("public_token", "public-token-live-2")])
        try await other.start()
        #expect(other.state == .notLoggedIn)
        #expect(await other.storedSessionConflict?.message.contains("\"public_token\"") == true)
        await other.shutdown()
    }

    @Test func aRecordFromBeforeBindingIsUsedAndBoundAtItsNextSave() async throws {
        let harness = try Harness()
        // The scripted provider names no endpoint: its records are bare, as before binding.
        try await harness.login()
        await harness.client.shutdown()

        let home = client(harness, Self.home)
        try await home.start()
        #expect(home.state == .established)
        try await home.renew()
        await home.shutdown()

        let clone = client(harness, Self.clone)
        try await clone.start()
        #expect(clone.state == .notLoggedIn, "bound to the endpoint that saved it")
        await clone.shutdown()
    }

    @Test func aSecretComponentIsADigest() {
        let digest = EndpointIdentity.digest("api-key-secret")
        #expect(digest.hasPrefix("sha256:") && digest.count == "sha256:".count + 32)
        #expect(!digest.contains("api-key-secret"))
        #expect(digest == EndpointIdentity.digest("api-key-secret"))
        #expect(digest != EndpointIdentity.digest("api-key-secreT"))
    }
}
