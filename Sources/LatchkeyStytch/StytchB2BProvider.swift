public import Foundation
public import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT
public import LatchkeySecrets
public import Logging

/// The Stytch B2B adapter (`stytch-b2b`): member sessions from passwords and email magic
/// links; MFA (SMS OTP, TOTP, recovery codes) and discovery finishing an intermediate
/// session; the member session checked, extended and revoked under `b2b/sessions/`.
///
/// When a first factor is not enough, Stytch answers `member_authenticated: false` with
/// an intermediate session token; the adapter throws
/// ``/Latchkey/AuthError/needsUserAction(_:_:providerCode:httpStatus:)`` with a ``/Latchkey/UserAction`` of
/// kind `mfa` (or `primary_auth` when Stytch asks for another first factor):
/// - ``/Latchkey/UserAction/continuationToken``: the intermediate session token (a secret);
/// - ``/Latchkey/UserAction/requirements``: `{"mfa_required", "primary_required", "member_id",
///   "organization_id"}` — Stytch's two objects as sent, and whose login it is;
/// - ``/Latchkey/UserAction/expiresAt``: 10 minutes after the answer (the SDK's local limit).
///
/// The client moves to ``/Latchkey/SessionState/needsUserAction(_:)``; the app sends an SMS
/// (``sendSMSOTP(for:mfaPhoneNumber:)``) when that is the factor, then logs in with the
/// second factor (``StytchB2BCredentials/totp(code:organizationID:memberID:intermediateSessionToken:setDefaultMFA:)``…),
/// which takes the token from the pending action. A finished member session replaces it.
public struct StytchB2BProvider: AuthProvider, StytchAdapter {
    /// `stytch-b2b`.
    public static let identifier = "stytch-b2b"

    /// The registry entry: ``StytchConfiguration/schema``, built from the provider context.
    public static let factory = ProviderFactory(identifier: identifier, schema: StytchConfiguration.schema) { context in
        try StytchB2BProvider(context: context)
    }

    /// How long an intermediate session is kept locally (the SDK's 10 minutes).
    public static let intermediateSessionLifetime: TimeInterval = 600

    /// The adapter's configuration.
    public var configuration: StytchConfiguration { parts.settings }
    let parts: StytchAdapterParts

    /// Builds the adapter from the core's context (settings, transport, clock, logger,
    /// options, and its store namespace for a sent magic link's PKCE verifier).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a malformed setting.
    public init(context: ProviderContext) throws(AuthError) {
        parts = try StytchAdapterParts(context, b2b: true)
    }

    /// Builds the adapter from a configuration made in code; without a `store`, a sent
    /// magic link's PKCE verifier is kept in memory only.
    public init(
        configuration: StytchConfiguration, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey.stytch", factory: { _ in SwiftLogNoOpLogHandler() }),
        options: SessionOptions = SessionOptions(), store: (any SecretStore)? = nil
    ) {
        parts = StytchAdapterParts(
            settings: configuration, b2b: true, transport: transport, clock: clock, logger: logger,
            options: options, store: store)
    }

    public var identifier: String { Self.identifier }

    /// 5 minutes to 366 days.
    public var sessionDurationBounds: ClosedRange<Duration>? { StytchSessionCalls.durationBounds }

    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? StytchB2BCredentials else {
            throw AuthError(.unsupportedCredentials, "the stytch-b2b provider takes StytchB2BCredentials, not \(type(of: credentials))")
        }
        let minutes = JSONValue.number(Double(StytchSessionCalls.minutes(sessionDuration ?? .seconds(300))))
        let pendingToken = try liveToken(of: pending)
        let path: StytchPath
        var body: JSONObject
        switch credentials.kind {
        case .password(let email, let password, let locale):
            path = .b2bPasswordsAuthenticate
            body = [
                "organization_id": .string(credentials.organizationID ?? ""), "email_address": .string(email), "password": .string(password),
                "session_duration_minutes": minutes,
            ]
            if let locale { body["locale"] = .string(locale) }
            if let token = credentials.intermediateSessionToken ?? pendingToken { body["intermediate_session_token"] = .string(token) }
        case .magicLink(let token, let verifier):
            path = .b2bMagicLinksAuthenticate
            body = ["magic_links_token": .string(token), "session_duration_minutes": minutes]
            if let token = credentials.intermediateSessionToken ?? pendingToken { body["intermediate_session_token"] = .string(token) }
            if let verifier = try await pkce.verifier(given: verifier) { body["pkce_code_verifier"] = .string(verifier) }
        case .smsOTP(let code, let enrollment):
            path = .b2bSMSAuthenticate
            body = try secondFactor(credentials, pending: pending, pendingToken: pendingToken)
            body["code"] = .string(code)
            body["session_duration_minutes"] = minutes
            if let enrollment { body["set_mfa_enrollment"] = .string(enrollment) }
        case .totp(let code, let setDefault):
            path = .b2bTOTPAuthenticate
            body = try secondFactor(credentials, pending: pending, pendingToken: pendingToken)
            body["code"] = .string(code)
            body["session_duration_minutes"] = minutes
            if let setDefault { body["set_default_mfa"] = .bool(setDefault) }
        case .recoveryCode(let code):
            path = .b2bRecoveryCodesRecover
            body = try secondFactor(credentials, pending: pending, pendingToken: pendingToken)
            body["recovery_code"] = .string(code)
            body["session_duration_minutes"] = minutes
        case .discoveryExchange(let locale):
            path = .b2bDiscoveryExchange
            body = [
                "intermediate_session_token": .string(try requireToken(credentials.intermediateSessionToken ?? pendingToken)),
                "organization_id": .string(credentials.organizationID ?? ""), "session_duration_minutes": minutes,
            ]
            if let locale { body["locale"] = .string(locale) }
        case .oauth(let options):
            let flow = StytchOAuthFlow(
                settings: configuration, clock: calls.api.clock, options: options, organizationID: credentials.organizationID ?? "")
            let (token, verifier) = try await flow.run()
            path = .b2bOAuthAuthenticate
            body = ["oauth_token": .string(token), "session_duration_minutes": minutes, "pkce_code_verifier": .string(verifier)]
            if let token = credentials.intermediateSessionToken ?? pendingToken { body["intermediate_session_token"] = .string(token) }
        }
        let data = try await calls.api.post(path, body, sessionToken: nil)
        // The link is used up whether or not another factor is needed.
        if path == .b2bMagicLinksAuthenticate { await pkce.clear() }
        if let action = try Self.pendingAction(data, path: path, now: calls.api.clock.now) {
            throw AuthError.needsUserAction(
                action, "Stytch needs another factor before the member session starts (\(action.kind))",
                httpStatus: 200)
        }
        return try calls.report(data, path: path)
    }

    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        try await calls.validate(current)
    }

    public func revoke(_ current: AuthenticatedSession) async throws {
        try await calls.revoke(current)
    }

    public func checkTokens(_ tokens: SessionTokens) throws {
        try StytchSessionCalls.checkTokens(tokens)
    }

    // MARK: Typed calls

    /// Emails the member a login (or sign-up) magic link for an organization,
    /// `b2b/magic_links/email/login_or_signup`, with a fresh `pkce_code_challenge` as the
    /// SDKs send it; the verifier is kept and sent by the next
    /// ``StytchB2BCredentials/magicLink(token:pkceCodeVerifier:)`` login. Not a login: the
    /// session state does not change.
    ///
    /// - Throws: ``/Latchkey/AuthError``: `storage` when the verifier cannot be kept;
    ///   Stytch's refusal (`invalidArgument`, `unrecoverable`, `rateLimited`, `transient`).
    public func sendMagicLink(
        organizationID: String, emailAddress: String, loginRedirectURL: URL? = nil,
        signupRedirectURL: URL? = nil
    ) async throws {
        var body: JSONObject = ["organization_id": .string(organizationID), "email_address": .string(emailAddress)]
        if let loginRedirectURL { body["login_redirect_url"] = .string(loginRedirectURL.absoluteString) }
        if let signupRedirectURL { body["signup_redirect_url"] = .string(signupRedirectURL.absoluteString) }
        body["pkce_code_challenge"] = .string(try await pkce.makeChallenge())
        _ = try await calls.api.post(.b2bMagicLinksEmailLoginOrSignup, body, sessionToken: nil)
    }

    /// Sends the member an SMS one-time passcode (`b2b/otps/sms/send`) for the pending
    /// MFA step; finish with ``StytchB2BCredentials/smsOTP(code:organizationID:memberID:intermediateSessionToken:setMFAEnrollment:)``.
    /// Not a login: the session state does not change.
    ///
    /// - Parameters:
    ///   - action: the client's pending action (``/Latchkey/SessionState/needsUserAction(_:)``).
    ///   - mfaPhoneNumber: the number to enroll, when the member has none yet.
    /// - Throws: ``/Latchkey/AuthError``: `invalidState` for an expired or foreign action; Stytch's
    ///   refusal (`invalidArgument`, `unrecoverable`, `rateLimited`, `transient`).
    public func sendSMSOTP(for action: UserAction, mfaPhoneNumber: String? = nil) async throws {
        var body = try secondFactor(StytchB2BCredentials.smsOTP(code: ""), pending: action, pendingToken: try liveToken(of: action))
        if let mfaPhoneNumber { body["mfa_phone_number"] = .string(mfaPhoneNumber) }
        _ = try await calls.api.post(.b2bSMSSend, body, sessionToken: nil)
    }

    /// The organizations an intermediate session can enter (`b2b/discovery/organizations`);
    /// enter one with ``StytchB2BCredentials/discoveryExchange(organizationID:intermediateSessionToken:locale:)``.
    ///
    /// - Throws: ``/Latchkey/AuthError``: Stytch's refusal, or `transient` for a malformed answer.
    public func discoveredOrganizations(intermediateSessionToken: String) async throws -> [StytchDiscoveredOrganization] {
        let path = StytchPath.b2bDiscoveryOrganizations
        let data = try await calls.api.post(path, ["intermediate_session_token": .string(intermediateSessionToken)], sessionToken: nil)
        return try Self.organizations(in: data, path: path)
    }

    /// The `discovered_organizations` of an answer.
    static func organizations(in data: JSONObject, path: StytchPath) throws(AuthError) -> [StytchDiscoveredOrganization] {
        guard let list = data["discovered_organizations"]?.arrayValue else {
            throw StytchAPIClient.malformed(path, "the answer has no discovered_organizations")
        }
        return try list.map { (value: JSONValue) throws(AuthError) -> StytchDiscoveredOrganization in
            guard let object = value.objectValue, let organization = object.object("organization").flatMap(StytchObjects.organization) else {
                throw StytchAPIClient.malformed(path, "a discovered organization has no organization")
            }
            let membership = object.object("membership")
            return StytchDiscoveredOrganization(
                organization: organization, membershipType: membership?.nonEmptyString("type"),
                member: membership?.object("member").flatMap(StytchObjects.member),
                memberAuthenticated: object["member_authenticated"]?.boolValue ?? false,
                requirements: .object(["mfa_required": object["mfa_required"] ?? .null, "primary_required": object["primary_required"] ?? .null]),
                raw: object)
        }
    }

    /// Verifies a member-session JWT locally against the B2B JWKS; see
    /// ``StytchProvider/verifySessionJWT(_:)``.
    public func verifySessionJWT(_ jwt: String) async throws -> StytchSessionClaims {
        try await verifier.verify(jwt)
    }

    // MARK: Intermediate sessions

    /// The pending action's token, refusing one past its 10 minutes.
    private func liveToken(of pending: UserAction?) throws(AuthError) -> String? {
        guard let pending, let token = pending.continuationToken, !token.isEmpty else { return nil }
        if let expiresAt = pending.expiresAt, expiresAt <= calls.api.clock.now {
            throw AuthError(.invalidState, "the intermediate session expired (10 minutes); log in again")
        }
        return token
    }

    private func requireToken(_ token: String?) throws(AuthError) -> String {
        guard let token, !token.isEmpty else {
            throw AuthError(.invalidState, "no intermediate session: log in with a first factor first, or pass the intermediate session token")
        }
        return token
    }

    /// `organization_id`, `member_id` and `intermediate_session_token` of an MFA call,
    /// from the credentials or the pending action.
    private func secondFactor(_ credentials: StytchB2BCredentials, pending: UserAction?, pendingToken: String?) throws(AuthError) -> JSONObject {
        let token = try requireToken(credentials.intermediateSessionToken ?? pendingToken)
        guard let organizationID = credentials.organizationID ?? pending?.requirements?["organization_id"]?.stringValue,
            let memberID = credentials.memberID ?? pending?.requirements?["member_id"]?.stringValue
        else {
            throw AuthError(.invalidArgument, "an MFA call needs the organization and the member: pass them, or finish the client's pending action")
        }
        return ["organization_id": .string(organizationID), "member_id": .string(memberID), "intermediate_session_token": .string(token)]
    }

    /// The user action an answer asks for: `member_authenticated: false` with an
    /// intermediate session token; `nil` for a member session.
    static func pendingAction(_ data: JSONObject, path: StytchPath, now: Date) throws(AuthError) -> UserAction? {
        let authenticated = data["member_authenticated"]?.boolValue
        let token = data.nonEmptyString("intermediate_session_token")
        let hasSession = data.object("member_session") != nil
        guard authenticated == false || (authenticated == nil && !hasSession && token != nil) else { return nil }
        guard let token else { throw StytchAPIClient.malformed(path, "member_authenticated is false without an intermediate_session_token") }
        let member = data.object("member")
        let mfa = data["mfa_required"] ?? .null
        let primary = data["primary_required"] ?? .null
        var requirements: JSONObject = ["mfa_required": mfa, "primary_required": primary]
        if let memberID = data.nonEmptyString("member_id") ?? member?.nonEmptyString("member_id") { requirements["member_id"] = .string(memberID) }
        if let organizationID = data.object("organization")?.nonEmptyString("organization_id") ?? member?.nonEmptyString("organization_id") {
            requirements["organization_id"] = .string(organizationID)
        }
        let kind = mfa == .null && primary != .null ? "primary_auth" : "mfa"
        return UserAction(
            kind: kind, continuationToken: token, requirements: .object(requirements),
            expiresAt: now.addingTimeInterval(intermediateSessionLifetime))
    }
}

extension StytchB2BProvider {
    /// Renamed: the configuration, as every adapter names it.
    @available(*, deprecated, renamed: "configuration")
    public var settings: StytchConfiguration { configuration }

    /// Renamed: every adapter is built with `init(context:)`.
    @available(*, deprecated, renamed: "init(context:)")
    public init(_ context: ProviderContext) throws(AuthError) {
        try self.init(context: context)
    }

    /// Renamed: every adapter is built from its configuration with `init(configuration:…)`.
    @available(*, deprecated, renamed: "init(configuration:transport:clock:logger:options:store:)")
    public init(
        settings: StytchConfiguration, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey.stytch", factory: { _ in SwiftLogNoOpLogHandler() }),
        options: SessionOptions = SessionOptions(), store: (any SecretStore)? = nil
    ) {
        self.init(configuration: settings, transport: transport, clock: clock, logger: logger, options: options, store: store)
    }
}

extension AuthClient {
    /// The Stytch B2B adapter, when this client uses one: its typed calls
    /// (``StytchB2BProvider/sendSMSOTP(for:mfaPhoneNumber:)``,
    /// ``StytchB2BProvider/discoveredOrganizations(intermediateSessionToken:)``,
    /// ``StytchB2BProvider/verifySessionJWT(_:)``) without casting ``/Latchkey/AuthClient/provider``.
    public nonisolated var stytchB2B: StytchB2BProvider? { provider as? StytchB2BProvider }
}
