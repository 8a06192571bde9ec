public import Foundation
public import Latchkey
internal import LatchkeyJWT
public import LatchkeySecrets
public import Logging

/// The Auth0 adapter: password, MFA, browser (PKCE with a loopback redirect) and device
/// logins; refresh-token renewal with rotation; `/userinfo` checks; revocation; and
/// every Authentication API error classified for the session core.
///
/// Register it once and name `auth0` in `latchkey.json`:
/// ```swift
/// ProviderRegistry.shared.register(Auth0Provider.factory)
/// ```
///
/// With ``Auth0Configuration/dpop`` on, every token request and every request that
/// carries the access token is signed with a DPoP proof (RFC 9449), as Auth0.swift does.
///
/// Stateless apart from its JWKS cache and DPoP key: safe to use from any task.
public struct Auth0Provider: AuthProvider {
    /// `auth0`.
    public static let identifier = "auth0"

    /// The registry entry: identifier `auth0`, settings ``Auth0Configuration/schema``.
    public static let factory = ProviderFactory(identifier: identifier, schema: Auth0Configuration.schema) { context in
        try Auth0Provider(context: context)
    }

    public var identifier: String { Self.identifier }
    /// The application's settings.
    public let configuration: Auth0Configuration

    let api: Auth0API
    let validator: IDTokenValidator
    /// DPoP's key pair and nonces, when ``Auth0Configuration/dpop`` is on.
    let dpop: Auth0DPoP?
    let clock: any SessionClock
    let logger: Logger

    /// How long an `mfa_token` is accepted (Auth0: 10 minutes).
    public static let mfaTokenLifetime: TimeInterval = 600
    /// The session ends this long before the ID token's `session_expiry`.
    public static let sessionExpiryMargin: TimeInterval = 30
    /// A token handed out lives at least this long unless the app asks otherwise:
    /// Auth0.swift's `minTTL` default.
    public var defaultMinimumTokenTTL: Duration { .seconds(60) }
    /// Tokens for other APIs (audiences) or scopes live beside the session's own, one
    /// set per (audience, scope), as Auth0.swift's `apiCredentials(forAudience:)` keeps them.
    public var keepsTokenSetsApart: Bool { true }
    /// Auth0 refused a renewal because the user is blocked.
    public static let blocked = TerminationReason("userBlocked")

    /// Builds the adapter from the core's context: settings, transport, clock, logger, and
    /// the adapter's store namespace (the DPoP key pair); `leeway_seconds` defaults to the
    /// session options' leeway.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the offending setting.
    public init(context: ProviderContext) throws(AuthError) {
        let configuration = try Auth0Configuration(settings: context.settings, defaultLeeway: context.options.leeway.timeInterval)
        self.init(
            configuration: configuration, transport: context.transport, clock: context.clock, logger: context.logger,
            keyStore: context.store)
    }

    /// Builds the adapter from a configuration.
    ///
    /// - Parameters:
    ///   - configuration: the Auth0 application's settings.
    ///   - transport: for every call to Auth0 (a ``/Latchkey/RetryingTransport`` retries the
    ///     idempotent ones; token grants are sent once).
    ///   - clock: the client's clock (token expiries, ID-token times, device polling).
    ///   - logger: never given a token; silent by default.
    ///   - keyStore: where the DPoP key pair is kept (entry `dpop_key`), with
    ///     ``Auth0Configuration/dpop`` on: a store namespace of the adapter's own. Without
    ///     one the key lives in memory only, and a DPoP session cannot be renewed after a restart.
    public init(
        configuration: Auth0Configuration, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey.auth0", factory: { _ in SwiftLogNoOpLogHandler() }),
        keyStore: (any SecretStore)? = nil
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let dpop = configuration.dpop ? Auth0DPoP(store: keyStore, clock: clock, logger: logger) : nil
        if configuration.dpop, keyStore == nil {
            logger.warning("DPoP is on without a key store: the key pair lives in memory only, and the session cannot be renewed after a restart")
        }
        self.dpop = dpop
        let api = Auth0API(configuration: configuration, transport: transport, clock: clock, dpop: dpop)
        self.api = api
        validator = IDTokenValidator(configuration: configuration, keys: api.jwksCache(), clock: clock)
    }

    // MARK: AuthProvider

    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? Auth0Credentials else {
            throw AuthError(.unsupportedCredentials, "Auth0 logs in with Auth0Credentials, not \(type(of: credentials))")
        }
        let scope = Auth0Configuration.withOpenID(credentials.scope ?? configuration.scope)
        let audience = credentials.audience ?? configuration.audience
        switch credentials.kind {
        case .password(let username, let password, let realm):
            var fields = [
                ("grant_type", realm == nil ? GrantType.password : GrantType.passwordRealm), ("username", username),
                ("password", password),
            ]
            if let realm { fields.append(("realm", realm)) }
            fields.append(("scope", scope))
            if let audience { fields.append(("audience", audience)) }
            let response = try await api.token(fields, call: .login)
            logger.debug("password login answered", metadata: ["grant": "\(realm == nil ? "password" : "password-realm")"])
            return try await session(from: response, scope: scope, audience: audience)
        case .mfaOTP(let otp):
            return try await finishMFA(pending, grant: GrantType.mfaOTP, ("otp", otp), audience: audience)
        case .mfaRecoveryCode(let code, let present):
            return try await finishMFA(
                pending, grant: GrantType.mfaRecoveryCode, ("recovery_code", code), audience: audience,
                presentRecoveryCode: present)
        case .browser(let options):
            return try await BrowserFlow(provider: self, options: options, scope: scope, audience: audience).run()
        case .device(let options):
            return try await DeviceFlow(provider: self, options: options, scope: scope, audience: audience).run()
        }
    }

    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        try checkSessionNotOver(current.tokens)
        var report = AuthenticatedSession(tokens: current.tokens)
        if current.user == nil, let idToken = current.tokens.idToken {
            // Tokens from elsewhere: their ID token is checked like any answer's.
            let claims = try await validator.validate(idToken)
            report = makeSession(tokens: current.tokens, claims: claims, previous: nil)
        }
        let userID = current.user?.id ?? current.session?.userID ?? report.user?.id ?? ""
        let claims = try await api.userInfo(accessToken: current.tokens.accessToken, user: userID, dpopBound: Self.isDPoPBound(current.tokens))
        report.user = Self.user(from: claims)
        return report
    }

    public func revoke(_ current: AuthenticatedSession) async throws {
        guard let refreshToken = current.tokens.refreshToken else { return }
        try await api.revoke(refreshToken: refreshToken)
    }

    public func checkTokens(_ tokens: SessionTokens) throws {
        guard !tokens.accessToken.isEmpty else { throw AuthError(.invalidArgument, "the access token is empty") }
        if let refreshToken = tokens.refreshToken, refreshToken.isEmpty {
            throw AuthError(.invalidArgument, "the refresh token is empty (leave it nil when there is none)")
        }
    }

    public func classify(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError: error
        case let error as Auth0IDTokenError: IDTokenValidator.rejection(error)
        case let error as Auth0ErrorResponse: error.classified(error.call ?? .login, now: clock.now)
        default: AuthError.classifying(error)
        }
    }

    // MARK: Helpers

    /// The grant types of `/oauth/token`.
    enum GrantType {
        static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        static let password = "password"
        static let refreshToken = "refresh_token"
        static let authorizationCode = "authorization_code"
        static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
        static let mfaOTP = "http://auth0.com/oauth/grant-type/mfa-otp"
        static let mfaRecoveryCode = "http://auth0.com/oauth/grant-type/mfa-recovery-code"
    }

    private func finishMFA(
        _ pending: UserAction?, grant: String, _ code: (String, String), audience: String?,
        presentRecoveryCode: (@Sendable (Auth0RecoveryCode) async -> Void)? = nil
    ) async throws -> AuthenticatedSession {
        guard let pending, pending.kind == "mfa", let mfaToken = pending.continuationToken else {
            throw AuthError(.invalidState, "no multi-factor step is pending; log in with a password first")
        }
        if let expiresAt = pending.expiresAt, expiresAt <= clock.now {
            throw AuthError(.unrecoverable, "the multi-factor step expired; log in again", providerCode: "expired_token")
        }
        let response = try await api.token([("grant_type", grant), ("mfa_token", mfaToken), code], call: .login)
        if let newCode = response.recoveryCode {
            // Issued whatever happens next (the old code is spent): shown before anything can fail.
            logger.debug("Auth0 issued a new recovery code; handing it to the app", metadata: ["presented": "\(presentRecoveryCode != nil)"])
            await presentRecoveryCode?(Auth0RecoveryCode(code: newCode))
        }
        return try await session(from: response, scope: nil, audience: audience)
    }
}
