import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Testing

/// The ID tokens' issuer is `https://{domain}/` (or the `issuer` setting), never the URL
/// the requests go to: a proxy, a gateway or the emulator in `base_url`.
@Suite("Auth0 issuer: the domain's, whatever the base URL")
struct IssuerTests {
    static var seed: Auth0Seed {
        var seed = Auth0Seed.standard
        seed.domain = "tenant.emulator.example"
        return seed
    }

    private func client(_ harness: Auth0Harness, _ settings: ProviderSettings) throws -> AuthClient {
        let configuration = try Auth0Configuration(settings: settings)
        let provider = Auth0Provider(configuration: configuration, transport: URLSessionTransport(), clock: harness.clock)
        return AuthClient(
            provider: provider, store: try MemorySecretStore(namespace: "issuer-test"), options: harness.options,
            transport: URLSessionTransport(), clock: harness.clock)
    }

    private func loginAlice(_ client: AuthClient) async throws {
        try await client.start()
        try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1"))
    }

    @Test func aLoginThroughABaseURLChecksTheDomainsIssuer() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let settings: ProviderSettings = [
            "domain": "tenant.emulator.example", "client_id": harness.auth0.clientID,
            "base_url": harness.auth0.baseURL.absoluteString,
        ]
        #expect(try Auth0Configuration(settings: settings).issuer == "https://tenant.emulator.example/")
        let client = try client(harness, settings)
        try await loginAlice(client)
        #expect(client.state == .established)
        #expect(client.currentUser?.id == "auth0|alice")
        await client.shutdown()
    }

    @Test func anExplicitIssuerSettingIsTheOneChecked() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let base: ProviderSettings = [
            "domain": "login.example.com", "client_id": harness.auth0.clientID,
            "base_url": harness.auth0.baseURL.absoluteString,
        ]
        var right = base
        right.values["issuer"] = "https://tenant.emulator.example/"
        let good = try client(harness, right)
        try await loginAlice(good)
        #expect(good.state == .established)
        await good.shutdown()

        // The domain's issuer is not the tenant's here: the ID token is refused.
        let wrong = try client(harness, base)
        try await wrong.start()
        let error = await authError {
            try await wrong.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1"))
        }
        #expect(error?.providerCode == "id_token_invalid")
        #expect((error?.underlying as? Auth0IDTokenError)?.claim == "iss")
        #expect(wrong.state == .notLoggedIn)
        await wrong.shutdown()
    }

    @Test(arguments: [
        (["domain": "tenant.example.com", "client_id": "c", "issuer": "http://tenant.example.com/"] as [String: String], "settings.issuer"),
        (["domain": "tenant.example.com/path", "client_id": "c"], "settings.domain"),
        (["domain": "user@tenant.example.com", "client_id": "c"], "settings.domain"),
        (["domain": "tenant.example.com", "client_id": "c", "base_url": "http://example.com/"], "settings.base_url"),
    ])
    func badSettingsAreNamed(_ values: [String: String], _ key: String) {
        do {
            _ = try Auth0Configuration(settings: ProviderSettings(values))
            Issue.record("expected a configuration error")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains(key), "\(error.message)")
        }
    }

    @Test func theIssuerNeverFollowsTheBaseURL() throws {
        let configuration = try Auth0Configuration(
            domain: "https://tenant.eu.auth0.com/", clientID: "c",
            baseURL: URL(string: "http://127.0.0.1:8080"))
        #expect(configuration.issuer == "https://tenant.eu.auth0.com/")
        #expect(configuration.baseURL.absoluteString == "http://127.0.0.1:8080/")
    }
}
