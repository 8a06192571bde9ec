internal import Foundation
internal import Latchkey

/// The browser half of OAuth through Stytch; the adapters send what it returns to
/// `oauth/authenticate` or `b2b/oauth/authenticate`.
///
/// The start URL (stytch-ios `OAuth+ThirdParty.swift`, stytch-react-native B2B tests):
/// - consumer: `<root>v1/public/oauth/{provider}/start?public_token&code_challenge&login_redirect_url&signup_redirect_url[&custom_scopes]`
/// - B2B: `<root>v1/b2b/public/oauth/{provider}/start?public_token&organization_id&pkce_code_challenge&login_redirect_url&signup_redirect_url[&custom_scopes]`
///
/// Stytch has no `state` parameter. The redirect URL carries one in its query
/// (`http://127.0.0.1:<port>/callback?state=…`): Stytch matches Redirect URLs on scheme,
/// host, port and path and keeps the query (unconfirmed — see Docs/stytch-oauth.md), and
/// appends `stytch_token_type=oauth&token=…`. The loopback listener ignores every redirect
/// without that state.
struct StytchOAuthFlow {
    let settings: StytchConfiguration
    let clock: any SessionClock
    let options: StytchOAuthLogin
    /// B2B: the organization the member signs in to; `nil` for a consumer login.
    let organizationID: String?

    /// The OAuth token and the PKCE verifier it is bound to.
    func run() async throws -> (token: String, verifier: String) {
        guard let redirect = settings.redirectURI else {
            throw AuthError(
                .configuration,
                "Stytch OAuth needs a fixed loopback redirect: set redirect_uri (e.g. http://127.0.0.1:53682/callback) and add it to the project's Redirect URLs (Login and Sign-up)"
            )
        }
        guard !options.provider.isEmpty, options.provider.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
            throw AuthError(.invalidArgument, "the Stytch OAuth provider must be a name such as google or github (lowercase letters only)")
        }
        let pkce = try PKCEPair()
        let state = try PKCEPair.randomToken(bytes: 16)
        let listener = try LoopbackListener(redirect: redirect)
        defer { listener.close() }
        let url = startURL(redirect: redirect.absoluteString + "?" + FormBody.encode([("state", state)]), challenge: pkce.challenge)
        let query = try await listener.run(
            opening: url, with: options.opener, state: state, timeout: options.timeout, clock: clock,
            page: Self.page(for:))
        guard query["stytch_token_type"] == "oauth", let token = query["token"], !token.isEmpty else {
            throw AuthError(
                .unrecoverable, "Stytch's OAuth redirect came back without an OAuth token", providerCode: query["error"] ?? "invalid_redirect")
        }
        return (token, pkce.verifier)
    }

    func startURL(redirect: String, challenge: String) -> URL {
        let b2b = organizationID != nil
        var pairs = [("public_token", settings.publicToken)]
        if let organizationID { pairs.append(("organization_id", organizationID)) }
        pairs.append((b2b ? "pkce_code_challenge" : "code_challenge", challenge))
        pairs += [("login_redirect_url", redirect), ("signup_redirect_url", redirect)]
        if !options.customScopes.isEmpty { pairs.append(("custom_scopes", options.customScopes.joined(separator: " "))) }
        let path = (b2b ? "v1/b2b/public/oauth/" : "v1/public/oauth/") + options.provider + "/start"
        let start = settings.baseURL.appending(path: path)
        return URL(string: start.absoluteString + "?" + FormBody.encode(pairs)) ?? start
    }

    /// What the browser shows after the redirect (its `state` already matched).
    @Sendable static func page(for query: [String: String]) -> String {
        let ok = query["stytch_token_type"] == "oauth" && query["token"] != nil
        let title = ok ? "You are signed in" : "Sign-in failed"
        let text =
            ok ? "You can close this tab and return to the app." : "The sign-in did not complete. You can close this tab and try again from the app."
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title></head>
            <body><h1 id="result">\(title)</h1><p>\(text)</p></body></html>
            """
    }
}
