public import Latchkey

/// How to log in to Auth0: pass one to ``/Latchkey/AuthClient/login(_:sessionDuration:)``.
///
/// ```swift
/// try await client.login(Auth0Credentials.password(username: "alice@example.com", password: secret,
///                                                  realm: "Username-Password-Authentication"))
/// try await client.login(Auth0Credentials.browser())                  // PKCE, loopback redirect
/// try await client.login(Auth0Credentials.deviceCode { code in print(code.userCode) })
/// // after an `mfa_required` (state `needsUserAction`):
/// try await client.login(Auth0Credentials.mfa(otp: "123456"))
/// try await client.login(Auth0Credentials.mfa(recoveryCode: typed) { new in show(new.code) })
/// ```
///
/// The password and codes are secrets: ``description`` never shows them.
public struct Auth0Credentials: LoginCredentials, CustomStringConvertible {
    enum Kind: Sendable {
        case password(username: String, password: String, realm: String?)
        case mfaOTP(String)
        case mfaRecoveryCode(String, present: @Sendable (Auth0RecoveryCode) async -> Void)
        case browser(Auth0BrowserLogin)
        case device(Auth0DeviceLogin)
    }

    let kind: Kind
    /// The scope to ask instead of the configured one (`openid` is always added).
    public var scope: String?
    /// The audience to ask instead of the configured one.
    public var audience: String?

    private init(_ kind: Kind, scope: String? = nil, audience: String? = nil) {
        self.kind = kind
        self.scope = scope
        self.audience = audience
    }

    /// A database user's name (email) and password: the password-realm grant when a
    /// `realm` (connection) is given, else the password grant (the tenant's default
    /// directory). Answers `needsUserAction` (`mfa`) when the user has MFA.
    public static func password(
        username: String, password: String, realm: String? = nil, scope: String? = nil,
        audience: String? = nil
    ) -> Auth0Credentials {
        Auth0Credentials(.password(username: username, password: password, realm: realm), scope: scope, audience: audience)
    }

    /// Finishes a pending MFA step with a one-time password (the `mfa-otp` grant).
    public static func mfa(otp: String) -> Auth0Credentials {
        Auth0Credentials(.mfaOTP(otp))
    }

    /// Finishes a pending MFA step with a recovery code (the `mfa-recovery-code` grant).
    ///
    /// Auth0 spends the code and answers with a new one: `present` receives it, to show
    /// the user (their old code no longer works, so an app that drops it leaves them
    /// without one). It is called as soon as Auth0's answer arrives — before the ID token
    /// is checked, since the new code is issued either way — and the login finishes after
    /// it returns. The adapter never logs or stores the code.
    public static func mfa(recoveryCode: String, present: @escaping @Sendable (Auth0RecoveryCode) async -> Void) -> Auth0Credentials {
        Auth0Credentials(.mfaRecoveryCode(recoveryCode, present: present))
    }

    /// The authorization code flow with PKCE, through the system browser and a
    /// loopback redirect (RFC 8252). See ``Auth0BrowserLogin``.
    public static func browser(
        _ options: Auth0BrowserLogin = Auth0BrowserLogin(), scope: String? = nil,
        audience: String? = nil
    ) -> Auth0Credentials {
        Auth0Credentials(.browser(options), scope: scope, audience: audience)
    }

    /// The device authorization flow (RFC 8628), for CLIs and machines without a
    /// browser: `present` shows the user code and where to enter it; the login polls
    /// until the user approves, denies, or the code expires.
    public static func deviceCode(
        scope: String? = nil, audience: String? = nil,
        present: @escaping @Sendable (Auth0DeviceCode) async -> Void
    ) -> Auth0Credentials {
        Auth0Credentials(.device(Auth0DeviceLogin(present: present)), scope: scope, audience: audience)
    }

    public var description: String {
        switch kind {
        case .password(let username, _, let realm): "Auth0Credentials.password(\(username), realm: \(realm ?? "default"), password: ‹redacted›)"
        case .mfaOTP: "Auth0Credentials.mfa(otp: ‹redacted›)"
        case .mfaRecoveryCode: "Auth0Credentials.mfa(recoveryCode: ‹redacted›)"
        case .browser: "Auth0Credentials.browser"
        case .device: "Auth0Credentials.deviceCode"
        }
    }
}

extension Auth0Credentials: CustomReflectable {
    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
