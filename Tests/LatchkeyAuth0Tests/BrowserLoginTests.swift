import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Auth0 browser login (PKCE, loopback redirect)")
struct BrowserLoginTests {
    static let noChromium: Comment = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"

    @Test(.enabled(if: WebDriver.isAvailable, BrowserLoginTests.noChromium))
    func headlessChromiumLogsInThroughTheLoginPage() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await WebDriver.with { driver in
            try await harness.client.start()
            let opened = Mutex<URL?>(nil)
            let opener = BrowserOpener { url in
                opened.withLock { $0 = url }
                try await driver.navigate(url)
                try await driver.waitFor("#username")
                try await driver.type("#username", "alice@example.com")
                try await driver.type("#password", "wrong-password")
                try await driver.click("#submit")
                try await driver.waitFor("#error")
                try await driver.type("#username", "alice@example.com")
                try await driver.type("#password", "alice-password-1")
                try await driver.click("#submit")
            }
            try await harness.client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener)))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "auth0|alice")
            try await driver.waitFor("#result")
            #expect(try await driver.text("#result") == "You are signed in")
            let url = try #require(opened.withLock { $0 })
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
            // The configured redirect, port and all: the one URL the tenant allows.
            #expect(query.first { $0.name == "redirect_uri" }?.value == harness.redirect.absoluteString)
            #expect(query.first { $0.name == "scope" }?.value == "openid profile email offline_access")
            #expect(query.first { $0.name == "nonce" } != nil && query.first { $0.name == "state" } != nil)
            #expect(await harness.count("POST", "/oauth/token", grant: "authorization_code") == 1)
            // The listener is closed once the login is done.
            #expect(await Self.refused(harness.redirect.url))
        }
    }

    @Test(.enabled(if: WebDriver.isAvailable, BrowserLoginTests.noChromium))
    func headlessChromiumApprovesADeviceCode() async throws {
        var seed = Auth0Seed.standard
        seed.deviceApprovalPolls = 0
        let harness = try await Auth0Harness(seed: seed)
        defer { Task { await harness.stop() } }
        try await WebDriver.with { driver in
            try await harness.client.start()
            let presented = Mutex<Auth0DeviceCode?>(nil)
            let client = harness.client
            let login = Task { try await client.login(Auth0Credentials.deviceCode { code in presented.withLock { $0 = code } }) }
            await harness.clock.waitForSleepers(1)
            let code = try #require(presented.withLock { $0 })
            try await driver.navigate(code.verificationURI)
            try await driver.waitFor("#user_code")
            try await driver.type("#user_code", code.userCode)
            try await driver.type("#username", "alice@example.com")
            try await driver.type("#password", "alice-password-1")
            try await driver.click("#approve")
            try await driver.waitFor("#done")
            harness.advance(by: 5)
            try await login.value
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "auth0|alice")
        }
    }

    /// Any local process can reach the listener. A redirect without the login's `state` —
    /// a stolen code, or an `error=` with the stranger's text — is answered 400 and
    /// ignored: the login neither ends nor repeats the text, and the real redirect that
    /// follows completes it. (The listener used to end the login on the first wrong
    /// `state`, and to report an `error=` before looking at `state`.)
    @Test func redirectsWithoutTheStateAreIgnoredAndTheLoginGoesOn() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let answers = Mutex<[String]>([])
        let redirect = harness.redirect.absoluteString
        let opener = BrowserOpener.handOff { url in
            for forged in [
                "?code=stolen&state=forged", "?error=access_denied&error_description=Call+0800+EVIL", "?code=stolen",
                "?error=access_denied&error_description=Call+0800+EVIL&state=",
            ] {
                let answer = (try? await RawHTTP.get(URL(string: redirect + forged)!)) ?? ""
                answers.withLock { $0.append(answer) }
            }
            // Then the browser comes back from Auth0 (login_hint: the emulator signs alice in at once).
            guard let authorize = URL(string: url.absoluteString + "&login_hint=alice%40example.com"),
                let reply = try? await RawHTTP.get(authorize),
                let location = reply.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("location:") }),
                let callback = URL(string: location.dropFirst("location:".count).trimmingCharacters(in: .whitespaces))
            else { return }
            _ = try? await RawHTTP.get(callback)
        }
        try await harness.client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener)))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "auth0|alice")
        let forged = answers.withLock { $0 }
        #expect(forged.count == 4)
        for answer in forged {
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            #expect(!answer.contains("EVIL"))
        }
        // Only the real code was exchanged.
        #expect(await harness.count("POST", "/oauth/token", grant: "authorization_code") == 1)
    }

    /// An `error=` carrying the login's own `state` is Auth0's answer: the login fails with it.
    @Test func anErrorWithTheStateEndsTheLogin() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let redirect = harness.redirect.absoluteString
        let opener = BrowserOpener.handOff { url in
            let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
            _ = try? await RawHTTP.get(URL(string: redirect + "?error=access_denied&error_description=User+cancelled&state=" + state)!)
        }
        let error = await authError { try await harness.client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        #expect(error?.providerCode == "access_denied")
        #expect(error?.message.contains("User cancelled") == true)
        #expect(harness.client.state == .notLoggedIn)
        #expect(await harness.count("POST", "/oauth/token") == 0)
        #expect(await Self.refused(harness.redirect.url))
    }

    @Test func theTimeoutAndALogoutCloseTheListener() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let opener = BrowserOpener.handOff { _ in }
        let client = harness.client
        let timedOut = Task { try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener, timeout: .seconds(120)))) }
        await harness.clock.waitForSleepers(1)
        harness.advance(by: 121)
        let error = await authError { try await timedOut.value }
        #expect(error?.providerCode == "timeout")
        #expect(await Self.refused(harness.redirect.url))

        // The fixed port is free again at once: a second login binds it.
        let cancelled = Task { try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        await harness.clock.waitForSleepers(1)
        try await client.logout()
        _ = await authError { try await cancelled.value }
        #expect(harness.client.state == .notLoggedIn)
        #expect(await Self.refused(harness.redirect.url))
    }

    /// The callback port is configured, never picked: without `redirect_uri` the browser
    /// login is refused before anything opens, and a port another program holds is an
    /// error naming it.
    @Test func theRedirectMustBeConfiguredAndItsPortFree() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let opened = Mutex(0)
        let opener = BrowserOpener.handOff { _ in opened.withLock { $0 += 1 } }

        let unconfigured = Auth0Provider(
            configuration: try Auth0Configuration(domain: harness.auth0.domain, clientID: harness.auth0.clientID, baseURL: harness.auth0.baseURL),
            transport: URLSessionTransport(), clock: harness.clock)
        let client = AuthClient(
            provider: unconfigured, store: try MemorySecretStore(namespace: "auth0-unconfigured"), options: harness.options,
            transport: URLSessionTransport(), clock: harness.clock)
        try await client.start()
        let missing = await authError { try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        #expect(missing?.code == .configuration)
        #expect(missing?.message.contains("redirect_uri") == true)
        await client.shutdown()

        let squatter = try SocketSquatter(port: harness.redirect.port)
        defer { squatter.close() }
        let busy = await authError { try await harness.client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        #expect(busy?.providerCode == "callback_port_in_use")
        #expect(busy?.message.contains("port \(harness.redirect.port)") == true)
        #expect(harness.client.state == .notLoggedIn)
        #expect(opened.withLock { $0 } == 0)
    }

    /// `redirect_uri` in the settings: a fixed loopback port; anything else is refused.
    @Test(arguments: [
        "http://localhost:53682/callback", "http://127.0.0.1/callback", "http://127.0.0.1:0/callback",
        "https://127.0.0.1:53682/callback", "http://127.0.0.1:53682/callback?x=1", "http://10.0.0.1:53682/callback",
    ])
    func aRedirectURIOtherThanAFixedLoopbackPortIsRefused(_ text: String) throws {
        #expect(throws: AuthError.self) {
            try Auth0Configuration(settings: ["domain": "tenant.eu.auth0.com", "client_id": "c", "redirect_uri": text])
        }
        let good = try Auth0Configuration(settings: [
            "domain": "tenant.eu.auth0.com", "client_id": "c", "redirect_uri": "http://127.0.0.1:53682/callback",
        ])
        #expect(good.redirectURI?.port == 53682 && good.redirectURI?.path == "/callback")
    }

    /// Whether a connection to `url` is refused (the listener is closed), within a second.
    static func refused(_ url: URL) async -> Bool {
        for _ in 0..<20 {
            do { _ = try await RawHTTP.get(url) } catch { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
