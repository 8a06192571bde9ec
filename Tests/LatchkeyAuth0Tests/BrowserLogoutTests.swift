import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Synchronization
import Testing

/// Logging out of a browser login can end the Auth0 session the browser holds
/// (`/v2/logout`), so the next browser login asks for credentials again instead of
/// signing the same user in silently.
@Suite("Auth0 browser logout")
struct BrowserLogoutTests {
    @Test(.enabled(if: WebDriver.isAvailable, BrowserLoginTests.noChromium))
    func aBrowserLogoutEndsTheAuth0SessionSoTheNextLoginAsks() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await WebDriver.with { driver in
            let client = harness.client
            try await client.start()
            let typing = BrowserOpener { url in
                try await driver.navigate(url)
                try await driver.waitFor("#username")
                try await driver.type("#username", "alice@example.com")
                try await driver.type("#password", "alice-password-1")
                try await driver.click("#submit")
            }
            let navigating = BrowserOpener { try await driver.navigate($0) }

            try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: typing)))
            #expect(client.state == .established)
            #expect(await harness.count("POST", "/authorize") == 1)

            // A plain logout leaves Auth0's session in the browser: the next login never shows
            // the login page (what the adapter did before it could end that session).
            try await client.logout()
            try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: navigating)))
            #expect(client.state == .established)
            #expect(await harness.count("POST", "/authorize") == 1)

            // Ending the browser session too: Auth0's signed-out page, then a login that asks.
            try await client.logout(endingAuth0BrowserSession: Auth0BrowserLogout(opener: navigating))
            #expect(client.state == .notLoggedIn)
            try await driver.waitFor("#done")
            #expect(try await driver.text("#done") == "Signed out")
            #expect(await harness.count("GET", "/v2/logout") == 1)
            try await client.login(Auth0Credentials.browser(Auth0BrowserLogin(opener: typing)))
            #expect(client.state == .established)
            #expect(await harness.count("POST", "/authorize") == 2)
        }
    }

    /// The logout URL names the client and `returnTo`; the browser opens only after the
    /// local logout succeeded, and a browser that cannot open is an error after it.
    @Test func theLogoutURLAndItsOrder() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let client = harness.client
        let auth0 = try #require(client.provider as? Auth0Provider)
        let returnTo = try #require(URL(string: "http://127.0.0.1:53682/signed-out?from=app"))
        let url = auth0.browserLogoutURL(returnTo: returnTo)
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(url.absoluteString.hasPrefix(harness.auth0.baseURL.absoluteString + "v2/logout?"))
        #expect(items.first { $0.name == "client_id" }?.value == harness.auth0.clientID)
        #expect(items.first { $0.name == "returnTo" }?.value == returnTo.absoluteString)

        // A refused secure logout changes nothing, and opens nothing.
        let opened = Mutex<[URL]>([])
        let recording = BrowserOpener { url in opened.withLock { $0.append(url) } }
        await harness.emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/revoke"), kind: .status(503)))
        _ = await authError { try await client.logout(revoke: .required, endingAuth0BrowserSession: Auth0BrowserLogout(opener: recording)) }
        #expect(client.state == .established)
        #expect(opened.withLock { $0 }.isEmpty)

        let failing = BrowserOpener { _ in throw NoDisplay() }
        let error = await authError { try await client.logout(endingAuth0BrowserSession: Auth0BrowserLogout(opener: failing)) }
        #expect(error?.code == .transient)
        #expect(client.state == .notLoggedIn)

        try await harness.loginAlice()
        try await client.logout(endingAuth0BrowserSession: Auth0BrowserLogout(opener: recording, returnTo: returnTo))
        #expect(opened.withLock { $0 } == [url])
    }
}

private struct NoDisplay: Error {}
