internal import Foundation
internal import Latchkey
internal import LatchkeyCrypto
internal import LatchkeyJWT

/// The authorization code flow with PKCE through the system browser and a loopback
/// redirect (RFC 7636, RFC 8252): S256 challenge, `state` and `nonce` checked, the
/// listener closed on success, failure, timeout and cancellation.
struct BrowserFlow {
    let provider: Auth0Provider
    let options: Auth0BrowserLogin
    let scope: String
    let audience: String?

    func run() async throws -> AuthenticatedSession {
        let verifier = try Self.randomToken(32)
        let state = try Self.randomToken(16)
        let nonce = try Self.randomToken(16)
        let listener: LoopbackListener
        do { listener = try LoopbackListener(port: options.port, callbackPath: options.callbackPath) } catch {
            throw AuthError(.transient, "the loopback listener for the browser login could not start: \(error)", underlying: error)
        }
        defer { listener.close() }
        let redirectURI = "http://127.0.0.1:\(listener.port)\(options.callbackPath)"
        let url = authorizeURL(redirectURI: redirectURI, state: state, nonce: nonce, challenge: Self.challenge(for: verifier))
        let query = try await waitForRedirect(listener, opening: url, state: state)
        if let error = query["error"] {
            throw AuthError(.unrecoverable, "Auth0 refused the browser login: \(query["error_description"] ?? error)", providerCode: error)
        }
        guard query["state"] == state else {
            throw AuthError(.unrecoverable, "the browser login came back with a state that was not sent; the answer was ignored",
                            providerCode: "state_mismatch")
        }
        guard let code = query["code"], !code.isEmpty else {
            throw AuthError(.unrecoverable, "the browser login came back without an authorization code", providerCode: "invalid_request")
        }
        let response = try await provider.api.token([("grant_type", Auth0Provider.GrantType.authorizationCode), ("code", code),
                                                     ("code_verifier", verifier), ("redirect_uri", redirectURI)], call: .login)
        let expectations = IDTokenValidator.Expectations(nonce: nonce, maxAge: options.maxAge?.seconds,
                                                         organization: provider.configuration.organization)
        return try await provider.session(from: response, expectations: expectations, scope: scope, audience: audience)
    }

    /// `/authorize?response_type=code&client_id&redirect_uri&scope&state&nonce&code_challenge&code_challenge_method=S256…`
    func authorizeURL(redirectURI: String, state: String, nonce: String, challenge: String) -> URL {
        let configuration = provider.configuration
        var pairs = [("response_type", "code"), ("client_id", configuration.clientID), ("redirect_uri", redirectURI), ("scope", scope),
                     ("state", state), ("nonce", nonce), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        if let audience { pairs.append(("audience", audience)) }
        if let organization = configuration.organization { pairs.append(("organization", organization)) }
        if let maxAge = options.maxAge { pairs.append(("max_age", String(Int64(maxAge.seconds.rounded(.down))))) }
        for key in options.parameters.keys.sorted() where !pairs.contains(where: { $0.0 == key }) {
            pairs.append((key, options.parameters[key] ?? ""))
        }
        let text = configuration.endpoint("authorize").absoluteString + "?" + FormBody.encode(pairs)
        return URL(string: text) ?? configuration.endpoint("authorize")
    }

    /// Opens the browser and waits for the redirect, the timeout, or cancellation.
    private func waitForRedirect(_ listener: LoopbackListener, opening url: URL, state: String) async throws -> [String: String] {
        let (clock, timeout, opener) = (provider.clock, options.timeout, options.opener)
        return try await withThrowingTaskGroup(of: [String: String]?.self) { group in
            group.addTask { try await listener.waitForCallback { Self.page(for: $0, state: state) } }
            group.addTask {
                do { try await opener(url) } catch {
                    throw AuthError(.transient, "the browser could not be opened: \(error)", underlying: error)
                }
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let query = result { return query }
                throw AuthError(.transient, "the browser login did not come back within \(Int(timeout.seconds)) s", providerCode: "timeout")
            }
            throw CancellationError()
        }
    }

    /// What the browser shows after the redirect.
    static func page(for query: [String: String], state: String) -> String {
        let ok = query["error"] == nil && query["state"] == state && query["code"] != nil
        let title = ok ? "You are signed in" : "Sign-in failed"
        let text = ok ? "You can close this tab and return to the app." : "The sign-in did not complete. You can close this tab and try again from the app."
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
            <style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center;color:#222}</style></head>
            <body><h1 id="result">\(title)</h1><p>\(text)</p></body></html>
            """
    }

    static func randomToken(_ bytes: Int) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(bytes))
    }

    static func challenge(for verifier: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)))
    }
}
