public import Latchkey

/// How a member logs in with ``StytchB2BProvider``: a first factor (password, email
/// magic link), a second factor finishing an MFA-pending login (SMS OTP, TOTP, recovery
/// code), or a discovery exchange into one organization.
///
/// Second factors and the exchange need the intermediate session token: by default the
/// client's pending ``/Latchkey/UserAction`` supplies it (and the organization and member), so
/// after a login that ended in ``/Latchkey/SessionState/needsUserAction(_:)`` the app only passes
/// the code. Secrets are redacted in ``description`` and reflection.
///
/// ```swift
/// try await client.login(StytchB2BCredentials.totp(code: "123456"))
/// ```
public struct StytchB2BCredentials: LoginCredentials, CustomStringConvertible, CustomReflectable {
    enum Kind: Sendable {
        case password(emailAddress: String, password: String, locale: String?)
        case magicLink(token: String, pkceCodeVerifier: String?)
        case smsOTP(code: String, setMFAEnrollment: String?)
        case totp(code: String, setDefaultMFA: Bool?)
        case recoveryCode(String)
        case discoveryExchange(locale: String?)
        case oauth(StytchOAuthLogin)
    }

    let kind: Kind
    /// The organization; default: the pending action's.
    let organizationID: String?
    /// The member; default: the pending action's.
    let memberID: String?
    /// The intermediate session token; default: the pending action's.
    let intermediateSessionToken: String?

    /// `b2b/passwords/authenticate`. A pending intermediate session, if any, is sent along.
    public static func password(organizationID: String, emailAddress: String, password: String, locale: String? = nil) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .password(emailAddress: emailAddress, password: password, locale: locale), organizationID: organizationID,
            memberID: nil, intermediateSessionToken: nil)
    }

    /// `b2b/magic_links/authenticate` with the email magic link's token, and the PKCE
    /// verifier of the link's challenge: by default the one the adapter kept when it sent
    /// the link (``StytchB2BProvider/sendMagicLink(organizationID:emailAddress:loginRedirectURL:signupRedirectURL:)``).
    public static func magicLink(token: String, pkceCodeVerifier: String? = nil) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .magicLink(token: token, pkceCodeVerifier: pkceCodeVerifier), organizationID: nil, memberID: nil,
            intermediateSessionToken: nil)
    }

    /// `b2b/otps/sms/authenticate`: the code of an SMS sent with ``StytchB2BProvider/sendSMSOTP(for:mfaPhoneNumber:)``.
    ///
    /// - Parameters:
    ///   - code: the code the member received.
    ///   - organizationID: the organization; by default the pending action's.
    ///   - memberID: the member; by default the pending action's.
    ///   - intermediateSessionToken: the intermediate session; by default the pending action's.
    ///   - setMFAEnrollment: `enroll` or `unenroll`, when the member changes enrollment.
    public static func smsOTP(
        code: String, organizationID: String? = nil, memberID: String? = nil, intermediateSessionToken: String? = nil,
        setMFAEnrollment: String? = nil
    ) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .smsOTP(code: code, setMFAEnrollment: setMFAEnrollment), organizationID: organizationID, memberID: memberID,
            intermediateSessionToken: intermediateSessionToken)
    }

    /// `b2b/totp/authenticate` with the authenticator app's code.
    public static func totp(
        code: String, organizationID: String? = nil, memberID: String? = nil, intermediateSessionToken: String? = nil,
        setDefaultMFA: Bool? = nil
    ) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .totp(code: code, setDefaultMFA: setDefaultMFA), organizationID: organizationID, memberID: memberID,
            intermediateSessionToken: intermediateSessionToken)
    }

    /// `b2b/recovery_codes/recover` with one of the member's recovery codes (used up).
    public static func recoveryCode(
        _ code: String, organizationID: String? = nil, memberID: String? = nil,
        intermediateSessionToken: String? = nil
    ) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .recoveryCode(code), organizationID: organizationID, memberID: memberID,
            intermediateSessionToken: intermediateSessionToken)
    }

    /// `b2b/discovery/intermediate_sessions/exchange`: the intermediate session (the
    /// pending action's, or one obtained elsewhere) for a member session in `organizationID`
    /// (see ``StytchB2BProvider/discoveredOrganizations(intermediateSessionToken:)``).
    public static func discoveryExchange(
        organizationID: String, intermediateSessionToken: String? = nil,
        locale: String? = nil
    ) -> StytchB2BCredentials {
        StytchB2BCredentials(
            kind: .discoveryExchange(locale: locale), organizationID: organizationID, memberID: nil,
            intermediateSessionToken: intermediateSessionToken)
    }

    /// OAuth through Stytch in the browser into `organizationID` (see ``StytchOAuthLogin``):
    /// the token is exchanged at `b2b/oauth/authenticate` with the PKCE verifier (and a
    /// pending intermediate session, if any). Answers `needsUserAction` when the
    /// organization requires MFA.
    public static func oauth(organizationID: String, _ options: StytchOAuthLogin) -> StytchB2BCredentials {
        StytchB2BCredentials(kind: .oauth(options), organizationID: organizationID, memberID: nil, intermediateSessionToken: nil)
    }

    public var description: String {
        let name =
            switch kind {
            case .password(let email, _, _): "password(\(email), password: <redacted>)"
            case .magicLink: "magicLink(token: <redacted>)"
            case .smsOTP: "smsOTP(code: <redacted>)"
            case .totp: "totp(code: <redacted>)"
            case .recoveryCode: "recoveryCode(<redacted>)"
            case .discoveryExchange: "discoveryExchange(\(organizationID ?? "?"))"
            case .oauth(let options): "oauth(\(options.provider), \(organizationID ?? "?"))"
            }
        return "StytchB2BCredentials." + name
    }

    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
