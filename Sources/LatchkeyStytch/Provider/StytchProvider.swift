internal import Foundation
public import Latchkey
public import Logging
internal import LatchkeyJWT

internal import LatchkeyJSON
/// The Stytch consumer adapter (`stytch`): passwords, OTPs and magic links; the
/// session checked with `sessions/authenticate {}`, extended with a duration, revoked
/// with `sessions/revoke`; the session JWT (5 minutes) as the access token.
///
/// Register it and name it in the configuration:
/// ```swift
/// ProviderRegistry.shared.register(StytchProvider.factory)
/// ```
///
/// A session is cleared only for a 401 with an unrecoverable `error_type`
/// (`unauthorized_credentials`, `user_unauthenticated`, `invalid_secret_authentication`,
/// `session_not_found`) answered to `sessions/authenticate` or `sessions/revoke`; any
/// other failure keeps it. A value type, safe to share.
public struct StytchProvider: AuthProvider {
    /// `stytch`.
    public static let identifier = "stytch"

    /// The registry entry: ``StytchSettings/schema``, built from the provider context.
    public static let factory = ProviderFactory(identifier: identifier, schema: StytchSettings.schema) { context in
        try StytchProvider(context)
    }

    /// The adapter's settings.
    public let settings: StytchSettings
    let calls: StytchSessionCalls
    let verifier: StytchJWTVerifier

    /// Builds the adapter from the core's context (settings, transport, clock, logger, options).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a malformed setting.
    public init(_ context: ProviderContext) throws {
        try self.init(settings: StytchSettings(context.settings), transport: context.transport, clock: context.clock,
                      logger: context.logger, options: context.options)
    }

    /// Builds the adapter from settings made in code.
    public init(settings: StytchSettings, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
                logger: Logger = Logger(label: "latchkey.stytch", factory: { _ in SwiftLogNoOpLogHandler() }),
                options: SessionOptions = SessionOptions()) {
        self.settings = settings
        let api = StytchAPIClient(settings: settings, transport: transport, clock: clock, logger: logger)
        calls = StytchSessionCalls(api: api, b2b: false, autoExtendDuration: settings.autoExtend ? options.sessionDuration : nil)
        verifier = StytchJWTVerifier(settings: settings, b2b: false, transport: transport, clock: clock, leeway: options.leeway.seconds)
    }

    public var identifier: String { Self.identifier }

    /// 5 minutes to 366 days.
    public var sessionDurationBounds: ClosedRange<Duration>? { StytchSessionCalls.durationBounds }

    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? StytchCredentials else {
            throw AuthError(.unsupportedCredentials, "the stytch provider takes StytchCredentials, not \(type(of: credentials))")
        }
        let minutes = JSONValue.number(Double(StytchSessionCalls.minutes(sessionDuration ?? .seconds(300))))
        let path: StytchPath
        var body: JSONObject
        switch credentials.kind {
        case .password(let email, let password):
            path = .passwordsAuthenticate
            body = ["email": .string(email), "password": .string(password), "session_duration_minutes": minutes]
        case .otp(let methodID, let code):
            path = .otpsAuthenticate
            body = ["token": .string(code), "method_id": .string(methodID), "session_duration_minutes": minutes]
        case .magicLink(let token, let verifier):
            path = .magicLinksAuthenticate
            body = ["token": .string(token), "session_duration_minutes": minutes]
            if let verifier { body["code_verifier"] = .string(verifier) }
        case .oauth(let options):
            let (token, verifier) = try await StytchOAuthFlow(settings: settings, clock: calls.api.clock, options: options, organizationID: nil).run()
            path = .oauthAuthenticate
            body = ["token": .string(token), "session_duration_minutes": minutes, "code_verifier": .string(verifier)]
        }
        let data = try await calls.api.post(path, body, sessionToken: nil)
        return try calls.report(data, path: path)
    }

    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        try await calls.validate(current)
    }

    public func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        try await calls.renew(request, current: current)
    }

    public func revoke(_ current: AuthenticatedSession) async throws {
        try await calls.revoke(current)
    }

    public func checkTokens(_ tokens: SessionTokens) throws {
        try StytchSessionCalls.checkTokens(tokens)
    }

    public func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        StytchSessionCalls.renewalPlan(for: tokens)
    }

    /// Verifies a session JWT locally (no call to Stytch while the JWKS is cached): the
    /// signature against the project's JWKS, `iss`, `aud`, the times, the session claim.
    ///
    /// - Throws: ``/Latchkey/AuthError``: `configuration` without `project_id`;
    ///   `renewAndRecheck` for a JWT that fails a check (expired, wrong issuer, unknown
    ///   key) — renew (``/Latchkey/AuthClient/accessToken(minTTL:scope:audience:)``) and check again;
    ///   `transient`/`rateLimited` when the JWKS cannot be fetched.
    public func verifySessionJWT(_ jwt: String) async throws -> StytchSessionClaims {
        try await verifier.verify(jwt)
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
