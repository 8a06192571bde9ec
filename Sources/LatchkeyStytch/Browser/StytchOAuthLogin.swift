public import Latchkey

/// OAuth through Stytch ("Sign in with Google, GitHub, …"), as the Stytch SDKs offer it:
/// the browser opens Stytch's start URL with a PKCE challenge and the loopback redirect
/// (``StytchConfiguration/redirectURI``), the user consents at the identity provider, Stytch
/// redirects back with a token, and the adapter exchanges it with the verifier.
public struct StytchOAuthLogin: Sendable {
    /// The identity provider as Stytch names it in the start URL: `google`, `github`,
    /// `microsoft`, `apple`, `gitlab`, `slack`, … (lowercase letters only).
    public var provider: String
    /// Opens the start URL (``/Latchkey/BrowserOpener/system``: `xdg-open`), or hands it to the app.
    public var opener: BrowserOpener
    /// How long to wait for the browser to come back (default 5 minutes); the listener
    /// is closed when it passes, and on cancellation.
    public var timeout: Duration
    /// Extra scopes to ask of the identity provider (`custom_scopes`).
    public var customScopes: [String]

    /// Creates the options.
    public init(provider: String, opener: BrowserOpener = .system, timeout: Duration = .seconds(300), customScopes: [String] = []) {
        self.provider = provider
        self.opener = opener
        self.timeout = timeout
        self.customScopes = customScopes
    }
}
