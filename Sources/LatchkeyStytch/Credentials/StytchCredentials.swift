public import Latchkey

/// How a consumer logs in with ``StytchProvider``: a password, a one-time passcode, or
/// a magic-link token. Secrets are redacted in ``description`` and reflection.
///
/// ```swift
/// try await client.login(StytchCredentials.password(email: "alice@example.com", password: password))
/// ```
public struct StytchCredentials: LoginCredentials, CustomStringConvertible, CustomReflectable {
    enum Kind: Sendable {
        case password(email: String, password: String)
        case otp(methodID: String, code: String)
        case magicLink(token: String, codeVerifier: String?)
        case oauth(StytchOAuthLogin)
    }

    let kind: Kind

    /// `passwords/authenticate` with an email address and password.
    public static func password(email: String, password: String) -> StytchCredentials {
        StytchCredentials(kind: .password(email: email, password: password))
    }

    /// `otps/authenticate` with the `method_id` the send call returned (SMS, email or
    /// WhatsApp) and the code the user typed.
    public static func otp(methodID: String, code: String) -> StytchCredentials {
        StytchCredentials(kind: .otp(methodID: methodID, code: code))
    }

    /// `magic_links/authenticate` with the link's token, and the PKCE `code_verifier`:
    /// by default the one the adapter kept when it sent the link
    /// (``StytchProvider/sendMagicLink(email:loginMagicLinkURL:signupMagicLinkURL:expirationMinutes:)``).
    public static func magicLink(token: String, codeVerifier: String? = nil) -> StytchCredentials {
        StytchCredentials(kind: .magicLink(token: token, codeVerifier: codeVerifier))
    }

    /// OAuth through Stytch in the browser ("Sign in with Google"): see ``StytchOAuthLogin``.
    /// The token Stytch's redirect carries is exchanged at `oauth/authenticate` with the
    /// PKCE verifier.
    public static func oauth(_ options: StytchOAuthLogin) -> StytchCredentials {
        StytchCredentials(kind: .oauth(options))
    }

    public var description: String {
        switch kind {
        case .password(let email, _): "StytchCredentials.password(\(email), password: <redacted>)"
        case .otp(let methodID, _): "StytchCredentials.otp(\(methodID), code: <redacted>)"
        case .magicLink(_, let verifier): "StytchCredentials.magicLink(token: <redacted>\(verifier == nil ? "" : ", PKCE"))"
        case .oauth(let options): "StytchCredentials.oauth(\(options.provider))"
        }
    }

    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
