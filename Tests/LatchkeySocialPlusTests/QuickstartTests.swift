import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySecrets
import LatchkeySocialPlus
import Testing

// The code of Docs/socialplus-quickstart.md, compiled and run against the emulator.

/// The app's session handler: a fresh auth token from the app's backend at each renewal.
struct BackendSessionHandler: SocialPlusSessionHandler {
    let backend: SocialPlusAuthTokenIssuer  // in a real app: your own server's endpoint

    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer {
        .renewWithAuthToken(try await backend.authToken(for: userID))
    }
}

func quickstart(apiKey: String, serverKey: String, baseURL: URL?, store: (any SecretStore)?) async throws -> AuthClient {
    // Your backend mints auth tokens with the server key (never ship it in an app).
    let backend = SocialPlusAuthTokenIssuer(serverKey: serverKey, region: .eu, baseURL: baseURL)

    ProviderRegistry.shared.register(SocialPlusProvider.factory)
    var settings: ProviderSettings = ["api_key": apiKey, "region": "eu"]
    settings.values["base_url"] = baseURL?.absoluteString  // only for the emulator
    var dependencies = ProviderDependencies()
    dependencies[SocialPlusSessionHandlerKey.self] = BackendSessionHandler(backend: backend)
    let client = try ProviderRegistry.shared.makeClient(
        LatchkeyConfiguration(provider: "socialplus", settings: settings),
        store: store, dependencies: dependencies)
    try await client.start()
    if client.state == .notLoggedIn {
        // Secure mode: log in with an auth token from the backend.
        try await client.login(
            SocialPlusLogin(
                userID: "alice", displayName: "Alice",
                authToken: try await backend.authToken(for: "alice")))
    }
    print(client.state, client.currentUser?.name ?? "-")  // established Alice
    return client
}

@Suite struct QuickstartTests {
    @Test func theQuickstartRunsAgainstTheEmulator() async throws {
        var seed = SocialPlusSeed.standard
        seed.secureMode = true
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus], seed: EmulatorSeed(socialPlus: seed)))
        let endpoint = try #require(emulator.socialPlus)
        let client = try await quickstart(
            apiKey: endpoint.apiKey, serverKey: endpoint.serverKey, baseURL: endpoint.baseURL,
            store: try MemorySecretStore(namespace: "quickstart"))
        #expect(client.state == .established)
        try await client.renew()
        #expect(client.state == .established)
        try await client.logout(revoke: .required)
        await client.shutdown()
        await emulator.stop()
    }
}
