// swift-format-ignore-file
// (Documentation snippets: each block is compared line by line with its page, so the
// formatter leaves this file as written.)
import Latchkey
import LatchkeySecrets
import Testing

// The minimal adapter of the DocC article "Writing a provider adapter", verbatim: it
// must compile and work as written.
struct EchoCredentials: LoginCredentials { var user: String }

struct EchoProvider: AuthProvider {
    static let identifier = "echo"

    static let factory = ProviderFactory(identifier: identifier, schema: ProviderSettingsSchema([])) { context in
        try EchoProvider(context: context)
    }

    var identifier: String { Self.identifier }

    init(context: ProviderContext) throws(AuthError) {}

    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? EchoCredentials else {
            throw AuthError(.unsupportedCredentials, "echo takes EchoCredentials")
        }
        return AuthenticatedSession(tokens: SessionTokens(accessToken: "token-for-\(credentials.user)"),
                                    user: User(id: credentials.user))
    }

    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession { current }

    func renew(_ request: RenewalRequest, current: AuthenticatedSession,
               preparation: RenewalPreparation) async throws -> AuthenticatedSession { current }

    func revoke(_ current: AuthenticatedSession) async throws {}
}

@Suite struct DocExampleAdapterTests {
    @Test func theArticlesAdapterSignsAUserIn() async throws {
        let registry = ProviderRegistry()
        registry.register(EchoProvider.factory)
        let client = try registry.makeClient(LatchkeyConfiguration(provider: "echo", session: SessionOptions(heartbeatInterval: nil)),
                                             store: try MemorySecretStore(namespace: "docs"))
        try await client.start()
        try await client.login(EchoCredentials(user: "ada"))
        #expect(client.state == .established)
        #expect(client.currentUser?.id == "ada")
        #expect(try await client.accessToken() == "token-for-ada")
        await client.shutdown()
    }
}
