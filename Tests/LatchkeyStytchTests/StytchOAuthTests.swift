import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch
import Synchronization
import Testing

/// OAuth through Stytch ("Sign in with Google"), consumer and B2B, end to end in headless
/// Chromium: Stytch's start URL with a PKCE challenge and the registered loopback
/// redirect, the provider's consent, the token exchanged with the verifier.
@Suite("Stytch OAuth (PKCE, loopback redirect)")
struct StytchOAuthTests {
    static let noChromium: Comment = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"

    /// The URL an opener was given.
    final class Opened: Sendable {
        private let url = Mutex<URL?>(nil)
        func record(_ url: URL) { self.url.withLock { $0 = url } }
        var value: URL? { url.withLock { $0 } }
    }

    /// An opener that consents in Chromium as `email`, remembering the start URL.
    private static func consenting(_ driver: WebDriver, as email: String, opened: Opened) -> BrowserOpener {
        BrowserOpener { url in
            opened.record(url)
            try await driver.navigate(url)
            try await driver.waitFor("#consent")
            try await driver.type("#email", email)
            try await driver.click("#allow")
        }
    }

    @Test(.enabled(if: WebDriver.isAvailable, StytchOAuthTests.noChromium))
    func headlessChromiumSignsInWithGoogleThroughStytch() async throws {
        let redirect = try LoopbackRedirect(port: RawHTTP.freePort())
        try await StytchHarness.with(redirect: redirect) { harness in
            try await WebDriver.with { driver in
                try await harness.client.start()
                let opened = Opened()
                let options = StytchOAuthLogin(provider: "google", opener: Self.consenting(driver, as: "alice@example.com", opened: opened))
                try await harness.client.login(StytchCredentials.oauth(options), sessionDuration: .seconds(3600))
                #expect(harness.client.state == .established)
                #expect(harness.client.currentUser?.email == "alice@example.com")
                try await driver.waitFor("#result")
                #expect(try await driver.text("#result") == "You are signed in")

                let url = try #require(opened.value)
                #expect(url.path == "/v1/public/oauth/google/start")
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                #expect(query.first { $0.name == "public_token" }?.value == harness.endpoint.publicToken)
                #expect(query.first { $0.name == "code_challenge" }?.value?.count == 43)
                let login = try #require(query.first { $0.name == "login_redirect_url" }?.value)
                #expect(login.hasPrefix(redirect.absoluteString + "?state="))
                #expect(query.first { $0.name == "signup_redirect_url" }?.value == login)
                // The exchange carried the verifier of that challenge.
                let exchange = try #require(harness.transport.last("/sdk/v1/oauth/authenticate")?.body)
                #expect(exchange["code_verifier"]?.stringValue?.count == 43)
                #expect(exchange["session_duration_minutes"] == 60)
                #expect(await harness.count("oauth/authenticate") == 1)
                #expect(await BrowserCheck.refused(redirect.url))
            }
        }
    }

    @Test(.enabled(if: WebDriver.isAvailable, StytchOAuthTests.noChromium))
    func headlessChromiumSignsAMemberInThroughStytchB2B() async throws {
        let redirect = try LoopbackRedirect(port: RawHTTP.freePort())
        let acme = StytchSeed.standard.organizations[0].organizationID
        try await StytchHarness.with(b2b: true, redirect: redirect) { harness in
            try await WebDriver.with { driver in
                try await harness.client.start()
                let opened = Opened()
                let bob = StytchOAuthLogin(provider: "microsoft", opener: Self.consenting(driver, as: "bob@acme.example", opened: opened))
                try await harness.client.login(StytchB2BCredentials.oauth(organizationID: acme, bob))
                #expect(harness.client.state == .established)
                #expect(harness.client.currentMember?.email == "bob@acme.example")
                let url = try #require(opened.value)
                #expect(url.path == "/v1/b2b/public/oauth/microsoft/start")
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                #expect(query.first { $0.name == "organization_id" }?.value == acme)
                #expect(query.first { $0.name == "pkce_code_challenge" }?.value?.count == 43)
                let exchange = try #require(harness.transport.last("/sdk/v1/b2b/oauth/authenticate")?.body)
                #expect(exchange["pkce_code_verifier"]?.stringValue?.count == 43)
                #expect(exchange["oauth_token"]?.stringValue?.isEmpty == false)

                // A member whose organization asks for MFA: the login pauses for a second factor.
                try await harness.client.logout()
                let carol = StytchOAuthLogin(provider: "google", opener: Self.consenting(driver, as: "carol@acme.example", opened: opened))
                let error = await thrownError(AuthError.self) {
                    try await harness.client.login(StytchB2BCredentials.oauth(organizationID: acme, carol))
                }
                #expect(error?.code == .needsUserAction)
                if case .needsUserAction(let action) = harness.client.state {
                    #expect(action.kind == "mfa")
                } else {
                    Issue.record("not waiting for MFA")
                }
            }
        }
    }

    /// OAuth needs a configured redirect, a provider name, and the login's state on the
    /// redirect: a redirect from anyone else is ignored and the real one completes it.
    @Test func oauthWithoutARedirectOrWithABadProviderIsRefusedAndForeignRedirectsAreIgnored() async throws {
        try await StytchHarness.with { harness in
            try await harness.client.start()
            let options = StytchOAuthLogin(provider: "google", opener: .handOff { _ in })
            let missing = await thrownError(AuthError.self) { try await harness.client.login(StytchCredentials.oauth(options)) }
            #expect(missing?.code == .configuration)
            #expect(missing?.message.contains("redirect_uri") == true)
        }
        let redirect = try LoopbackRedirect(port: RawHTTP.freePort())
        try await StytchHarness.with(redirect: redirect) { harness in
            try await harness.client.start()
            let bad = await thrownError(AuthError.self) {
                try await harness.client.login(StytchCredentials.oauth(StytchOAuthLogin(provider: "../evil", opener: .handOff { _ in })))
            }
            #expect(bad?.code == .invalidArgument)

            let forged = Mutex<[String]>([])
            let opener = BrowserOpener.handOff { url in
                let answer = (try? await RawHTTP.get(URL(string: redirect.absoluteString + "?stytch_token_type=oauth&token=stolen")!)) ?? ""
                forged.withLock { $0.append(answer) }
                // The emulated provider's consent, as a browser would post it.
                guard let page = try? await RawHTTP.get(url),
                    let attempt = page.range(of: #"name="attempt" value=""#).map({ page[$0.upperBound...].prefix { $0 != "\"" } }),
                    let consent = try? await EmulatorForm.post(
                        URL(string: "/__oauth_provider/consent", relativeTo: url)!.absoluteURL,
                        [("attempt", String(attempt)), ("email", "alice@example.com")]),
                    let location = consent.location, let back = URL(string: location)
                else { return }
                _ = try? await RawHTTP.get(back)
            }
            try await harness.client.login(StytchCredentials.oauth(StytchOAuthLogin(provider: "github", opener: opener)))
            #expect(harness.client.state == .established)
            #expect(forged.withLock { $0 }.first?.hasPrefix("HTTP/1.1 400") == true)
            #expect(await harness.count("oauth/authenticate") == 1)
        }
    }
}

/// A form POST over a raw socket (no redirect following): the status line and `Location`.
enum EmulatorForm {
    struct Answer {
        var head: String
        var location: String?
    }

    static func post(_ url: URL, _ fields: [(String, String)]) async throws -> Answer {
        let port = UInt16(url.port ?? 80)
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        let request = Array(
            ("POST \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
        let bytes = try await onThreadOfItsOwn { try RawHTTP.exchange(port: port, request) }
        let text = String(decoding: bytes, as: UTF8.self)
        let location = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
            .map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) }
        return Answer(head: String(text.prefix { $0 != "\r" }), location: location)
    }
}

enum BrowserCheck {
    /// Whether a connection to `url` is refused (the listener is closed), within a second.
    static func refused(_ url: URL) async -> Bool {
        for _ in 0..<20 {
            do { _ = try await RawHTTP.get(url) } catch { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
