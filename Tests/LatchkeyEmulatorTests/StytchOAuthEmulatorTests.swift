import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// OAuth through the emulated Stytch: the start checks the redirect URLs against the
/// project's (the query aside) and keeps the PKCE challenge; the consent redirects with
/// a one-time token; `oauth/authenticate` wants the matching verifier.
@Suite struct StytchOAuthEmulatorTests {
    let http = EmulatorHTTP.shared
    static let redirect = "http://127.0.0.1:53682/callback"
    static let verifier = Base64URL.encode((0..<32).map { UInt8($0) })
    static let challenge = "6oZqdX5MOLq_qBJ8vppAnT4fk6AP8UiP9zX8-Rev_9A"  // base64url(SHA-256(verifier))

    private func withStytch(_ body: (StytchEndpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
        do { try await body(try #require(emulator.stytch)) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func start(
        _ stytch: StytchEndpoint, b2b: Bool = false, redirect: String = Self.redirect + "?state=s-1",
        challenge: String? = Self.challenge, organization: String? = nil
    ) async throws -> EmulatorHTTP.Reply {
        let path = b2b ? "v1/b2b/public/oauth/google/start" : "v1/public/oauth/google/start"
        var components = try #require(URLComponents(url: stytch.baseURL.appending(path: path), resolvingAgainstBaseURL: false))
        var items = [
            URLQueryItem(name: "public_token", value: stytch.publicToken), URLQueryItem(name: "login_redirect_url", value: redirect),
            URLQueryItem(name: "signup_redirect_url", value: redirect),
        ]
        if let challenge { items.append(URLQueryItem(name: b2b ? "pkce_code_challenge" : "code_challenge", value: challenge)) }
        if let organization { items.append(URLQueryItem(name: "organization_id", value: organization)) }
        components.queryItems = items
        return try await http.send("GET", try #require(components.url))
    }

    /// Consents on the start's page as `email`: the redirect's token.
    private func consent(_ stytch: StytchEndpoint, _ page: EmulatorHTTP.Reply, email: String) async throws -> String {
        #expect(page.status == 200, "\(page.text)")
        let marker = #"name="attempt" value=""#
        let attempt = String(try #require(page.text.range(of: marker).map { page.text[$0.upperBound...].prefix { $0 != "\"" } }))
        let reply = try await http.send(
            "POST", stytch.baseURL.appending(path: "__oauth_provider/consent"), form: [("attempt", attempt), ("email", email)])
        #expect(reply.status == 302)
        let location = try #require(reply.header("location"))
        #expect(location.hasPrefix(Self.redirect + "?state=s-1&stytch_token_type=oauth&token="))
        return try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "token" }?.value)
    }

    private func authenticate(_ stytch: StytchEndpoint, path: String, _ body: JSONObject) async throws -> EmulatorHTTP.Reply {
        let basic = "Basic " + Data("\(stytch.publicToken):\(stytch.publicToken)".utf8).base64EncodedString()
        return try await http.send("POST", stytch.sdkBaseURL.appending(path: path), headers: ["Authorization": basic], json: body)
    }

    @Test func theChallengeIsBoundToTheTokenAndTheVerifierRequired() async throws {
        try await withStytch { stytch in
            // No verifier, a wrong one, then the right one; a token is good once.
            for (verifier, status) in [(nil, 400), (Base64URL.encode([UInt8](repeating: 7, count: 32)), 400)] as [(String?, Int)] {
                let token = try await consent(stytch, try await start(stytch), email: "alice@example.com")
                var body: JSONObject = ["token": .string(token), "session_duration_minutes": 60]
                if let verifier { body["code_verifier"] = .string(verifier) }
                let refused = try await authenticate(stytch, path: "oauth/authenticate", body)
                #expect(refused.status == status)
                #expect(try refused.object()["error_type"] == "pkce_mismatch")
            }
            let token = try await consent(stytch, try await start(stytch), email: "alice@example.com")
            let body: JSONObject = ["token": .string(token), "session_duration_minutes": 60, "code_verifier": .string(Self.verifier)]
            let signedIn = try await authenticate(stytch, path: "oauth/authenticate", body)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let factors = try signedIn.json()["data"]?["session"]?["authentication_factors"]?.arrayValue ?? []
            #expect(factors.first?["type"] == "oauth" && factors.first?["delivery_method"] == "oauth_google")
            let again = try await authenticate(stytch, path: "oauth/authenticate", body)
            #expect(again.status == 404)
            #expect(try again.object()["error_type"] == "oauth_token_not_found")
        }
    }

    @Test func redirectURLsMustBeTheProjectsAndTheConsentKnowsItsAccounts() async throws {
        try await withStytch { stytch in
            for other in ["http://127.0.0.1:41234/callback", "http://127.0.0.1:53682/other", "http://localhost:53682/callback"] {
                let refused = try await start(stytch, redirect: other)
                #expect(refused.status == 400, "\(other)")
                #expect(try refused.object()["error_type"] == "no_match_for_provided_login_redirect_url")
            }
            let page = try await start(stytch)
            let marker = #"name="attempt" value=""#
            let attempt = String(try #require(page.text.range(of: marker).map { page.text[$0.upperBound...].prefix { $0 != "\"" } }))
            let unknown = try await http.send(
                "POST", stytch.baseURL.appending(path: "__oauth_provider/consent"),
                form: [("attempt", attempt), ("email", "nobody@example.com")])
            #expect(unknown.status == 200 && unknown.text.contains(#"id="error""#))
        }
    }

    @Test func b2bOAuthStartsInAnOrganizationAndAnswersMFA() async throws {
        try await withStytch { stytch in
            let acme = StytchSeed.standard.organizations[0].organizationID
            #expect(try await start(stytch, b2b: true).status == 404)
            let token = try await consent(stytch, try await start(stytch, b2b: true, organization: acme), email: "bob@acme.example")
            // A consumer exchange of a B2B token is refused.
            let crossed = try await authenticate(
                stytch, path: "oauth/authenticate", ["token": .string(token), "code_verifier": .string(Self.verifier)])
            #expect(crossed.status == 404)
            let bobToken = try await consent(stytch, try await start(stytch, b2b: true, organization: acme), email: "bob@acme.example")
            let bob = try await authenticate(
                stytch, path: "b2b/oauth/authenticate",
                ["oauth_token": .string(bobToken), "pkce_code_verifier": .string(Self.verifier), "session_duration_minutes": 60])
            #expect(bob.status == 200, "\(bob.text)")
            #expect(try bob.json()["data"]?["member_authenticated"] == true)
            let carolToken = try await consent(stytch, try await start(stytch, b2b: true, organization: acme), email: "carol@acme.example")
            let carol = try await authenticate(
                stytch, path: "b2b/oauth/authenticate",
                ["oauth_token": .string(carolToken), "pkce_code_verifier": .string(Self.verifier)])
            #expect(carol.status == 200)
            #expect(try carol.json()["data"]?["member_authenticated"] == false)
        }
    }
}
