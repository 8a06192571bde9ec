public import Foundation
public import Latchkey

extension Auth0Provider {
    /// `https://{domain}/v2/logout?client_id=…&returnTo=…`: opened in the browser, it ends
    /// the Auth0 session the browser holds (its SSO cookie).
    public func browserLogoutURL(returnTo: URL? = nil) -> URL {
        var pairs = [("client_id", configuration.clientID)]
        if let returnTo { pairs.append(("returnTo", returnTo.absoluteString)) }
        let endpoint = configuration.endpoint("v2/logout")
        return URL(string: endpoint.absoluteString + "?" + FormBody.encode(pairs)) ?? endpoint
    }

    /// Opens ``browserLogoutURL(returnTo:)`` with the options' opener, so the next browser
    /// login shows Auth0's login page instead of signing the same user in silently.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/transient`` when the browser could not be opened.
    public func endBrowserSession(_ options: Auth0BrowserLogout = Auth0BrowserLogout()) async throws {
        do { try await options.opener(browserLogoutURL(returnTo: options.returnTo)) } catch {
            throw AuthError(.transient, "the Auth0 browser session could not be ended: the browser could not be opened: \(error)", underlying: error)
        }
    }
}

extension AuthClient {
    /// Logs out (``/Latchkey/AuthClient/logout(revoke:)``), then ends the Auth0 session the
    /// browser holds (`/v2/logout`, see ``Auth0BrowserLogout``), so the next browser login
    /// asks for credentials again.
    ///
    /// The browser is opened only once the local logout succeeded: a refused secure
    /// logout changes nothing. A client whose provider is not Auth0 only logs out.
    ///
    /// - Throws: what `logout(revoke:)` throws; then ``/Latchkey/AuthError/Code/transient`` when the
    ///   browser could not be opened (the local session is already gone: call
    ///   ``Auth0Provider/endBrowserSession(_:)`` again).
    public nonisolated func logout(revoke mode: RevokeMode = .none, endingAuth0BrowserSession options: Auth0BrowserLogout) async throws {
        try await logout(revoke: mode)
        guard let auth0 = provider as? Auth0Provider else { return }
        try await auth0.endBrowserSession(options)
    }
}
