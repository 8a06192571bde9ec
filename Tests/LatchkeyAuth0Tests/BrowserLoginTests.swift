import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Synchronization
import Testing

@Suite("Auth0 browser login (PKCE, loopback redirect)")
struct BrowserLoginTests {
    @Test(.enabled(if: WebDriver.isAvailable, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func headlessChromiumLogsInThroughTheLoginPage() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        let driver = try #require(try await WebDriver.start())
        defer { Task { await driver.quit() } }
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
        #expect(query.first { $0.name == "redirect_uri" }?.value?.hasPrefix("http://127.0.0.1:") == true)
        #expect(query.first { $0.name == "scope" }?.value == "openid profile email offline_access")
        #expect(query.first { $0.name == "nonce" } != nil && query.first { $0.name == "state" } != nil)
        #expect(await harness.count("POST", "/oauth/token", grant: "authorization_code") == 1)
        // The listener is closed once the login is done.
        let redirect = try #require(query.first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
        #expect(await Self.refused(redirect))
    }

    @Test(.enabled(if: WebDriver.isAvailable, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func headlessChromiumApprovesADeviceCode() async throws {
        var seed = Auth0Seed.standard
        seed.deviceApprovalPolls = 0
        let harness = try await Auth0Harness(seed: seed)
        defer { Task { await harness.stop() } }
        let driver = try #require(try await WebDriver.start())
        defer { Task { await driver.quit() } }
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

    @Test func aForeignStateIsRefusedAndTheListenerCloses() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let redirect = Mutex<URL?>(nil)
        let opener = BrowserOpener.handOff { url in
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard let uri = items.first(where: { $0.name == "redirect_uri" })?.value, let target = URL(string: uri + "?code=stolen&state=forged") else { return }
            redirect.withLock { $0 = target }
            Task { _ = try? await QuickstartTests.get(target) }
        }
        let error = await authError { try await harness.client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        #expect(error?.providerCode == "state_mismatch")
        #expect(harness.client.state == .notLoggedIn)
        #expect(await harness.count("POST", "/oauth/token") == 0)
        #expect(await Self.refused(try #require(redirect.withLock { $0 })))
    }

    @Test func theTimeoutAndALogoutCloseTheListener() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let redirect = Mutex<URL?>(nil)
        let opener = BrowserOpener.handOff { url in
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            redirect.withLock { $0 = items.first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)) }
        }
        let client = harness.client
        let timedOut = Task { try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener, timeout: .seconds(120)))) }
        await harness.clock.waitForSleepers(1)
        harness.advance(by: 121)
        let error = await authError { try await timedOut.value }
        #expect(error?.providerCode == "timeout")
        #expect(await Self.refused(try #require(redirect.withLock { $0 })))

        let cancelled = Task { try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: opener))) }
        await harness.clock.waitForSleepers(1)
        try await client.logout()
        _ = await authError { try await cancelled.value }
        #expect(harness.client.state == .notLoggedIn)
        #expect(await Self.refused(try #require(redirect.withLock { $0 })))
    }

    /// Whether a connection to `url` is refused (the listener is closed), within a second.
    /// (A raw socket: FoundationNetworking requests to the in-process listener have been
    /// seen to hang and hold a connection slot of the shared session.)
    static func refused(_ url: URL) async -> Bool {
        for _ in 0..<20 {
            do { _ = try await QuickstartTests.get(url) } catch { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
