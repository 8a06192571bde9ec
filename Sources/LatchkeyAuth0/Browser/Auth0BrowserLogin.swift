public import Foundation
public import Latchkey

/// The browser login's options: how the authorization URL reaches a browser, how long
/// to wait, and what else to ask of Auth0. The redirect is the configuration's
/// ``Auth0Configuration/redirectURI``.
public struct Auth0BrowserLogin: Sendable {
    /// Opens the authorization URL (``/Latchkey/BrowserOpener/system``: `xdg-open`), or hands it
    /// to the app (``/Latchkey/BrowserOpener/handOff(_:)``).
    public var opener: BrowserOpener
    /// How long to wait for the browser to come back. Default 5 minutes; the listener
    /// is closed when it passes, and on cancellation (a logout stops the login).
    public var timeout: Duration
    /// `max_age`: the longest time since the user last authenticated; checked against
    /// the ID token's `auth_time`.
    public var maxAge: Duration?
    /// Other authorization parameters (`prompt`, `connection`, `login_hint`, `screen_hint`).
    public var parameters: [String: String]

    /// Creates the options.
    public init(
        opener: BrowserOpener = .system, timeout: Duration = .seconds(300), maxAge: Duration? = nil,
        parameters: [String: String] = [:]
    ) {
        self.opener = opener
        self.timeout = timeout
        self.maxAge = maxAge
        self.parameters = parameters
    }
}

/// How `AuthClient.logout(revoke:endingAuth0BrowserSession:)` ends the Auth0
/// session the browser holds (the SSO cookie): `GET /v2/logout?client_id&returnTo`, opened
/// in the browser.
///
/// Without it the next browser login signs the same user in silently, with no page.
public struct Auth0BrowserLogout: Sendable {
    /// Opens the logout URL; the same browser as the login's, or the cookie is not cleared.
    public var opener: BrowserOpener
    /// Where Auth0 sends the browser afterwards. It must be listed exactly in the
    /// application's Allowed Logout URLs, or Auth0 shows an error page instead; `nil`:
    /// Auth0's own signed-out page.
    public var returnTo: URL?

    /// Creates the options.
    public init(opener: BrowserOpener = .system, returnTo: URL? = nil) {
        self.opener = opener
        self.returnTo = returnTo
    }
}
