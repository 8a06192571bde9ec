internal import Foundation
internal import Latchkey

/// The authorization code flow with PKCE through the system browser and a loopback
/// redirect (RFC 7636, RFC 8252): S256 challenge, `state` and `nonce` checked, the
/// listener closed on success, failure, timeout and cancellation.
struct BrowserFlow {
    let provider: Auth0Provider
    let options: Auth0BrowserLogin
    let scope: String
    let audience: String?

    func run() async throws -> AuthenticatedSession {
        guard let redirect = provider.configuration.redirectURI else {
            throw AuthError(
                .configuration,
                "the Auth0 browser login needs a fixed loopback redirect: set redirect_uri (e.g. http://127.0.0.1:53682/callback) and register it exactly in the application's Allowed Callback URLs"
            )
        }
        let pkce = try PKCEPair()
        let state = try PKCEPair.randomToken(bytes: 16)
        let nonce = try PKCEPair.randomToken(bytes: 16)
        let listener = try LoopbackListener(redirect: redirect)
        defer { listener.close() }
        let url = authorizeURL(redirectURI: redirect.absoluteString, state: state, nonce: nonce, challenge: pkce.challenge)
        // The listener has matched `state` before this sees the query: an `error` here is Auth0's.
        let query = try await listener.run(
            opening: url, with: options.opener, state: state, timeout: options.timeout, clock: provider.clock,
            page: Self.page(for:))
        if let error = query["error"] {
            throw AuthError(.unrecoverable, "Auth0 refused the browser login: \(query["error_description"] ?? error)", providerCode: error)
        }
        guard let code = query["code"], !code.isEmpty else {
            throw AuthError(.unrecoverable, "the browser login came back without an authorization code", providerCode: "invalid_request")
        }
        let response = try await provider.api.token(
            [
                ("grant_type", Auth0Provider.GrantType.authorizationCode), ("code", code),
                ("code_verifier", pkce.verifier), ("redirect_uri", redirect.absoluteString),
            ], call: .login)
        let expectations = IDTokenValidator.Expectations(
            nonce: nonce, maxAge: options.maxAge?.timeInterval,
            organization: provider.configuration.organization)
        return try await provider.session(from: response, expectations: expectations, scope: scope, audience: audience)
    }

    /// `/authorize?response_type=code&client_id&redirect_uri&scope&state&nonce&code_challenge&code_challenge_method=S256…`
    func authorizeURL(redirectURI: String, state: String, nonce: String, challenge: String) -> URL {
        let configuration = provider.configuration
        var pairs = [
            ("response_type", "code"), ("client_id", configuration.clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", state), ("nonce", nonce), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        if let audience { pairs.append(("audience", audience)) }
        if let organization = configuration.organization { pairs.append(("organization", organization)) }
        if let maxAge = options.maxAge { pairs.append(("max_age", String(maxAge.components.seconds))) }
        for key in options.parameters.keys.sorted() where !pairs.contains(where: { $0.0 == key }) {
            pairs.append((key, options.parameters[key] ?? ""))
        }
        let text = configuration.endpoint("authorize").absoluteString + "?" + FormBody.encode(pairs)
        return URL(string: text) ?? configuration.endpoint("authorize")
    }

    /// What the browser shows after the redirect (its `state` already matched).
    @Sendable static func page(for query: [String: String]) -> String {
        let ok = query["error"] == nil && query["code"] != nil
        let title = ok ? "You are signed in" : "Sign-in failed"
        let text =
            ok ? "You can close this tab and return to the app." : "The sign-in did not complete. You can close this tab and try again from the app."
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
            <style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center;color:#222}</style></head>
            <body><h1 id="result">\(title)</h1><p>\(text)</p></body></html>
            """
    }
}
