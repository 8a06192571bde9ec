public import Foundation
public import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT
public import LatchkeySecrets
public import Logging

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
/// `session_not_found`), or a 404 `session_not_found`, answered to
/// `sessions/authenticate` or `sessions/revoke`; any other failure keeps it. A value
/// type, safe to share.
public struct StytchProvider: AuthProvider, StytchAdapter {
    /// `stytch`.
    public static let identifier = "stytch"

    /// The registry entry: ``StytchConfiguration/schema``, built from the provider context.
    public static let factory = ProviderFactory(identifier: identifier, schema: StytchConfiguration.schema) { context in
        try StytchProvider(context: context)
    }

    /// The adapter's configuration.
    public var configuration: StytchConfiguration { parts.settings }
    let parts: StytchAdapterParts

    /// Builds the adapter from the core's context (settings, transport, clock, logger,
    /// options, and its store namespace for a sent magic link's PKCE verifier).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a malformed setting.
    public init(context: ProviderContext) throws(AuthError) {
        parts = try StytchAdapterParts(context, b2b: false)
    }

    /// Builds the adapter from a configuration made in code; without a `store`, a sent
    /// magic link's PKCE verifier is kept in memory only.
    public init(
        configuration: StytchConfiguration, transport: any HTTPTransport, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey.stytch", factory: { _ in SwiftLogNoOpLogHandler() }),
        options: SessionOptions = SessionOptions(), store: (any SecretStore)? = nil
    ) {
        parts = StytchAdapterParts(
            settings: configuration, b2b: false, transport: transport, clock: clock, logger: logger,
            options: options, store: store)
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
            if let verifier = try await pkce.verifier(given: verifier) { body["code_verifier"] = .string(verifier) }
        case .oauth(let options):
            let (token, verifier) = try await StytchOAuthFlow(settings: configuration, clock: calls.api.clock, options: options, organizationID: nil)
                .run()
            path = .oauthAuthenticate
            body = ["token": .string(token), "session_duration_minutes": minutes, "code_verifier": .string(verifier)]
        }
        let data = try await calls.api.post(path, body, sessionToken: nil)
        if path == .magicLinksAuthenticate { await pkce.clear() }
        return try calls.report(data, path: path)
    }

    /// Emails the user a login (or sign-up) magic link, `magic_links/email/login_or_create`,
    /// with a fresh PKCE challenge as the SDKs send it; the verifier is kept and sent by
    /// the next ``StytchCredentials/magicLink(token:codeVerifier:)`` login. Not a login:
    /// the session state does not change.
    ///
    /// - Parameters:
    ///   - email: the user's address.
    ///   - loginMagicLinkURL: where the link of an existing user leads (else the
    ///     project's default redirect URL).
    ///   - signupMagicLinkURL: the same for a new user.
    ///   - expirationMinutes: the link's lifetime, for login and sign-up alike.
    /// - Throws: ``/Latchkey/AuthError``: `storage` when the verifier cannot be kept;
    ///   Stytch's refusal (`invalidArgument`, `unrecoverable`, `rateLimited`, `transient`).
    public func sendMagicLink(
        email: String, loginMagicLinkURL: URL? = nil, signupMagicLinkURL: URL? = nil,
        expirationMinutes: Int? = nil
    ) async throws {
        var body: JSONObject = ["email": .string(email)]
        if let loginMagicLinkURL { body["login_magic_link_url"] = .string(loginMagicLinkURL.absoluteString) }
        if let signupMagicLinkURL { body["signup_magic_link_url"] = .string(signupMagicLinkURL.absoluteString) }
        if let expirationMinutes {
            body["login_expiration_minutes"] = .number(Double(expirationMinutes))
            body["signup_expiration_minutes"] = .number(Double(expirationMinutes))
        }
        body["code_challenge"] = .string(try await pkce.makeChallenge())
        body["code_challenge_method"] = "S256"
        _ = try await calls.api.post(.magicLinksEmailLoginOrCreate, body, sessionToken: nil)
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

extension StytchProvider {
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
    /// The Stytch consumer adapter, when this client uses one: its typed calls
    /// (``StytchProvider/verifySessionJWT(_:)``) without casting ``/Latchkey/AuthClient/provider``.
    public nonisolated var stytch: StytchProvider? { provider as? StytchProvider }
}
