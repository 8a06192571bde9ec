import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Testing

// The code of Docs/auth0-quickstart.md, compiled and run against the emulator.

/// Quickstart, part 1: a desktop app signs in through the browser.
func signInWithTheBrowser(
    domain: String, clientID: String, redirectURI: String = "http://127.0.0.1:53682/callback",
    baseURL: String? = nil, opener: BrowserOpener = .system
) async throws -> AuthClient {
    ProviderRegistry.shared.register(Auth0Provider.factory)
    var settings: ProviderSettings = ["domain": domain, "client_id": clientID, "redirect_uri": redirectURI]
    settings.values["base_url"] = baseURL  // only for a local emulator
    let configuration = LatchkeyConfiguration(
        provider: "auth0", settings: settings,
        store: StoreSettings(backend: .memory))
    let client = try ProviderRegistry.shared.makeClient(configuration)
    try await client.start()  // restores a stored session
    if client.state == .notLoggedIn {
        try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener)))
    }
    let token = try await client.accessToken()  // renewed when needed, once
    _ = token
    return client
}

/// Quickstart, part 2: a CLI signs in with the device code.
func signInFromATerminal(_ client: AuthClient) async throws {
    try await client.login(
        Auth0Credentials.deviceCode { code in
            print("To sign in, open \(code.verificationURI) and enter \(code.userCode)")
        })
    print("Signed in as \(client.currentUser?.email ?? "?")")
}

@Suite("Auth0 quickstart")
struct QuickstartTests {
    /// A GET over a raw socket on its own thread, as a browser would send it.
    static func get(_ url: URL) async throws -> String {
        try await RawHTTP.get(url)
    }

    @Test func theQuickstartRuns() async throws {
        // A free port in place of the documented 53682, registered with the tenant as the app would.
        let redirect = try LoopbackRedirect(port: RawHTTP.freePort())
        var options = EmulatorOptions(providers: [.auth0])
        options.seed.auth0.callbackURLs = [redirect.absoluteString]
        let emulator = try await Emulator.start(options)
        defer { Task { await emulator.stop() } }
        let auth0 = try #require(emulator.auth0)
        // The emulator's /authorize signs in the user named by login_hint without a page.
        let opener = BrowserOpener { url in
            var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "login_hint", value: "alice@example.com")]
            let authorize = try #require(components.url)
            let redirect = try await Self.get(authorize)
            let location = try #require(redirect.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
            let callback = try #require(URL(string: location.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)))
            #expect(try await Self.get(callback).contains("You are signed in"))
        }
        let client = try await signInWithTheBrowser(
            domain: auth0.domain, clientID: auth0.clientID, redirectURI: redirect.absoluteString,
            baseURL: auth0.baseURL.absoluteString, opener: opener)
        #expect(client.state == .established)
        #expect(client.currentUser?.email == "alice@example.com")
        // signInFromATerminal is compiled here; DeviceFlowTests runs the device login in simulated time.
        _ = signInFromATerminal
        await client.shutdown()
    }
}
