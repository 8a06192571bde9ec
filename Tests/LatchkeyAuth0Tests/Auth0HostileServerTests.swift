import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeySecrets
import Testing

/// The Auth0 adapter against a server that is not Auth0: a redirect is never followed
/// (the client ID and the password would go with it), a token no provider issues is
/// refused before it is stored, and a plain-http base URL is refused unless it is a
/// loopback address.
@Suite struct Auth0HostileServerTests {
    static let redirects = [301, 302, 303, 307, 308]

    static func client(baseURL: URL, store: MemorySecretStore) throws -> AuthClient {
        let registry = ProviderRegistry()
        registry.register(Auth0Provider.factory)
        let configuration = LatchkeyConfiguration(
            provider: "auth0",
            settings: ["domain": "tenant.example.com", "client_id": "client-1", "base_url": baseURL.absoluteString],
            session: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        return try registry.makeClient(configuration, store: store, transport: URLSessionTransport(defaultTimeout: .seconds(30)))
    }

    static func login(_ client: AuthClient) async throws {
        try await client.start(validating: false)
        try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1"))
    }

    @Test(arguments: redirects, ["127.0.0.1", "127.0.0.2"])
    func aRedirectIsRefusedAndTheCredentialsStayHome(status: Int, targetHost: String) async throws {
        let destination = try HostileHTTPServer(host: targetHost) { _ in HostileHTTPServer.json(200, "{}") }
        defer { destination.stop() }
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(status, headers: ["Location: \(destination.url.absoluteString)steal"]) }
        defer { server.stop() }
        let store = try MemorySecretStore(namespace: "auth0-redirect")
        let client = try Self.client(baseURL: server.url, store: store)
        let error = await #expect(throws: AuthError.self) { try await Self.login(client) }
        #expect(error?.endsSession == false)
        #expect(error?.message.contains("redirect") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(destination.requests.isEmpty, "nothing reached the redirect's target")
        #expect(server.requests.count == 1)
        #expect(client.state == .notLoggedIn)
        #expect(try await store.get(SessionOptions().vaultEntryName) == nil)
        await client.shutdown()
    }

    /// A complete password-grant answer whose access token is `token` (no ID token: the
    /// grant's answer may omit it).
    static func answer(token: String) -> String {
        let escaped = token.unicodeScalars.map {
            $0.value < 0x20 || $0.value > 0x7E || $0 == "\"" || $0 == "\\" ? String(format: "\\u%04x", $0.value) : String($0)
        }.joined()
        return
            #"{"access_token": "\#(escaped)", "token_type": "Bearer", "expires_in": 86400, "refresh_token": "refresh-1", "scope": "openid profile"}"#
    }

    @Test(arguments: ["tok\u{1B}[2Jcleared", "tok\u{9B}31m", "tok\u{202E}gnp.exe", "tok with space", "tok\"quote", "tok\r\nX-Injected: 1"])
    func aTokenOutsideTheBearerSyntaxIsRefusedAndNotStored(token: String) async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, Self.answer(token: token)) }
        defer { server.stop() }
        let store = try MemorySecretStore(namespace: "auth0-token")
        let client = try Self.client(baseURL: server.url, store: store)
        let error = await #expect(throws: AuthError.self) { try await Self.login(client) }
        #expect(error?.code == .transient)
        #expect(error?.message.contains("RFC 6750") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error.map { "\($0)" }?.contains(token) == false, "the message never quotes the token")
        #expect(client.state == .notLoggedIn)
        #expect(try await store.get(SessionOptions().vaultEntryName) == nil)
        await client.shutdown()
    }

    @Test func theSameAnswerWithABearerTokenLogsIn() async throws {
        // The control for the test above: the answer is otherwise complete.
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, Self.answer(token: "tok-A_b.c~d+e/f==")) }
        defer { server.stop() }
        let client = try Self.client(baseURL: server.url, store: try MemorySecretStore(namespace: "auth0-token-ok"))
        try await Self.login(client)
        #expect(client.state == .established)
        await client.shutdown()
    }

    @Test(arguments: ["http://127.attacker.example/", "http://127.0.0.1.attacker.example/", "http://localhost.attacker.example/", "ftp://127.0.0.1/"])
    func aNonLoopbackPlainHTTPBaseURLIsRefusedInCode(url: String) throws {
        #expect(throws: AuthError.self) { try Auth0Configuration(domain: "tenant.example.com", clientID: "client-1", baseURL: URL(string: url)!) }
    }

    @Test(arguments: ["http://127.0.0.1:9/", "http://[::1]:9/", "http://localhost:9/", "https://tenant.example.com/"])
    func loopbackAndHTTPSBaseURLsAreAccepted(url: String) throws {
        _ = try Auth0Configuration(domain: "tenant.example.com", clientID: "client-1", baseURL: URL(string: url)!)
    }
}
