import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

/// The emulated tenant's browser endpoints as Auth0 runs them: Allowed Callback URLs
/// matched exactly (port included), the browser's Auth0 session (the `auth0` cookie) that
/// signs a user in silently, and `/v2/logout` that ends it.
@Suite struct Auth0EmulatorBrowserTests {
    let http = EmulatorHTTP.shared

    private func withAuth0(_ seed: Auth0Seed = .standard, _ body: (Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: seed)))
        do { try await body(try #require(emulator.auth0)) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func authorizeParameters(_ auth0: Auth0Endpoint, redirectURI: String) -> [(String, String)] {
        [("response_type", "code"), ("client_id", auth0.clientID), ("redirect_uri", redirectURI), ("scope", "openid"), ("state", "s-1")]
    }

    private func authorize(
        _ auth0: Auth0Endpoint, redirectURI: String, extra: [(String, String)] = [], cookie: String? = nil
    ) async throws -> EmulatorHTTP.Reply {
        var components = try #require(URLComponents(url: auth0.baseURL.appending(path: "authorize"), resolvingAgainstBaseURL: false))
        components.queryItems = (authorizeParameters(auth0, redirectURI: redirectURI) + extra).map { URLQueryItem(name: $0.0, value: $0.1) }
        return try await http.send("GET", try #require(components.url), headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    /// What the old adapter sent — a loopback redirect on an ephemeral port, or any port but
    /// the registered one — gets Auth0's "Callback URL mismatch" page and never a redirect;
    /// the registered URL, exactly, gets the login page.
    @Test func callbackURLsAreMatchedExactlyPortIncluded() async throws {
        var seed = Auth0Seed.standard
        seed.callbackURLs = ["http://127.0.0.1:53682/callback"]
        try await withAuth0(seed) { auth0 in
            #expect(try await authorize(auth0, redirectURI: "http://127.0.0.1:53682/callback").status == 200)
            for other in [
                "http://127.0.0.1:41234/callback", "http://127.0.0.1/callback", "http://localhost:53682/callback",
                "http://127.0.0.1:53682/callback/", "http://127.0.0.1:53682/other", "https://127.0.0.1:53682/callback",
            ] {
                let refused = try await authorize(auth0, redirectURI: other)
                #expect(refused.status == 400, "\(other)")
                #expect(refused.text.contains("Callback URL mismatch"), "\(other)")
                #expect(refused.header("location") == nil)
                let posted = try await http.send(
                    "POST", auth0.baseURL.appending(path: "authorize"),
                    form: authorizeParameters(auth0, redirectURI: other)
                        + [("username", "alice@example.com"), ("password", "alice-password-1")])
                #expect(posted.status == 400 && posted.header("location") == nil, "\(other)")
            }
        }
    }

    /// Signing in on the login page leaves an Auth0 session in the browser: the next
    /// `/authorize` redirects with a code at once (unless `prompt=login`) until
    /// `/v2/logout` ends it.
    @Test func theBrowserSessionSignsInSilentlyUntilLogout() async throws {
        var seed = Auth0Seed.standard
        seed.logoutURLs = ["http://127.0.0.1:53682/signed-out"]
        try await withAuth0(seed) { auth0 in
            let redirectURI = Auth0Seed.defaultCallbackURL
            let signedIn = try await http.send(
                "POST", auth0.baseURL.appending(path: "authorize"),
                form: authorizeParameters(auth0, redirectURI: redirectURI)
                    + [("username", "alice@example.com"), ("password", "alice-password-1")])
            #expect(signedIn.status == 302)
            let setCookie = try #require(signedIn.header("set-cookie"))
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            #expect(cookie.hasPrefix("auth0=") && setCookie.contains("HttpOnly"))

            let silent = try await authorize(auth0, redirectURI: redirectURI, cookie: cookie)
            #expect(silent.status == 302)
            #expect(silent.header("location")?.hasPrefix(redirectURI + "?code=") == true)
            let forced = try await authorize(auth0, redirectURI: redirectURI, extra: [("prompt", "login")], cookie: cookie)
            #expect(forced.status == 200 && forced.text.contains(#"id="username""#))

            // A returnTo that is not an Allowed Logout URL is refused with a page.
            let refused = try await http.send(
                "GET",
                try #require(
                    URL(
                        string: auth0.baseURL.absoluteString
                            + "v2/logout?client_id=\(auth0.clientID)&returnTo=http%3A%2F%2F127.0.0.1%3A9%2Fevil")), headers: ["Cookie": cookie])
            #expect(refused.status == 400 && refused.header("location") == nil)
            #expect(refused.text.contains("Allowed Logout URLs"))
            #expect(try await authorize(auth0, redirectURI: redirectURI, cookie: cookie).status == 302)

            let loggedOut = try await http.send(
                "GET",
                try #require(
                    URL(
                        string: auth0.baseURL.absoluteString
                            + "v2/logout?client_id=\(auth0.clientID)&returnTo=http%3A%2F%2F127.0.0.1%3A53682%2Fsigned-out")),
                headers: ["Cookie": cookie])
            #expect(loggedOut.status == 302)
            #expect(loggedOut.header("location") == "http://127.0.0.1:53682/signed-out")
            let after = try await authorize(auth0, redirectURI: redirectURI, cookie: cookie)
            #expect(after.status == 200 && after.text.contains(#"id="username""#))
        }
    }
}
