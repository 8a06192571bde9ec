internal import Foundation
public import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT
internal import Logging

/// The social.plus adapter (provider id `socialplus`): login with a user ID and, in
/// secure mode, an auth token; access-token login (the app's JWT is the bearer, checked
/// with the user lookup); renewal by logging in again with the app's session handler
/// asked first, or by the access-token handler's next JWT; termination on a global ban
/// or a deleted user; secure logout.
///
/// ```swift
/// ProviderRegistry.shared.register(SocialPlusProvider.factory)
/// let client = try ProviderRegistry.shared.makeClient(configuration, dependencies: dependencies)
/// try await client.login(SocialPlusLogin(userID: "alice", authToken: token))
/// ```
///
/// Settings: `api_key` (required, secret), `region` (`sg` default, `eu`, `us`),
/// `base_url` (override). The device ID lives in the adapter's own namespace of the
/// store and survives logouts. Thread-safe; handlers registered at runtime replace those
/// given as dependencies.
public struct SocialPlusProvider: AuthProvider {
    /// `socialplus`.
    public static let identifier = "socialplus"

    /// Registers the adapter: `ProviderRegistry.shared.register(SocialPlusProvider.factory)`.
    public static let factory = ProviderFactory(identifier: identifier, schema: SocialPlusConfiguration.schema) { context in
        try SocialPlusProvider(context: context)
    }

    public var identifier: String { Self.identifier }

    /// Renamed: every adapter names its registry identifier `identifier`.
    @available(*, deprecated, renamed: "identifier")
    public static var providerID: String { identifier }

    /// Where the adapter talks to, and with which API key.
    public let configuration: SocialPlusConfiguration
    /// What the adapter says about the device at each login.
    public let deviceInfo: SocialPlusDeviceInfo

    let api: SocialPlusAPI
    let logger: Logger
    let device: DeviceIdentity
    let handlers: HandlerSlots

    /// Builds the adapter from its context: settings, transport, clock, logger, its
    /// store namespace (for the device ID) and the app's handlers
    /// (``SocialPlusSessionHandlerKey``, ``SocialPlusAccessTokenHandlerKey``).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming a missing or wrong setting.
    public init(context: ProviderContext, deviceInfo: SocialPlusDeviceInfo = .linux) throws(AuthError) {
        try self.init(configuration: SocialPlusConfiguration(settings: context.settings), context: context, deviceInfo: deviceInfo)
    }

    /// Builds the adapter with a configuration made in code; the context's settings are not read.
    public init(configuration: SocialPlusConfiguration, context: ProviderContext, deviceInfo: SocialPlusDeviceInfo = .linux) throws(AuthError) {
        guard !configuration.apiKey.isEmpty else { throw AuthError(.configuration, "the social.plus API key (\"settings.api_key\") is empty") }
        self.configuration = configuration
        self.deviceInfo = deviceInfo
        api = SocialPlusAPI(configuration: configuration, transport: context.transport, clock: context.clock)
        logger = context.logger
        device = DeviceIdentity(store: context.store, logger: context.logger)
        handlers = HandlerSlots(
            session: context.dependencies[SocialPlusSessionHandlerKey.self],
            accessToken: context.dependencies[SocialPlusAccessTokenHandlerKey.self])
    }

    // MARK: Handlers

    /// Registers the session handler (`nil` removes it), replacing the one given as a
    /// dependency. Takes effect at the next renewal.
    public func register(sessionHandler: (any SocialPlusSessionHandler)?) {
        handlers.session = sessionHandler
    }

    /// Registers the access-token handler (`nil` removes it), replacing the one given as
    /// a dependency. Register it before an access-token login.
    public func register(accessTokenHandler: (any SocialPlusAccessTokenHandler)?) {
        handlers.accessToken = accessTokenHandler
    }

    /// The device ID sent with every login: generated once and kept in the adapter's
    /// namespace of the store.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the store fails.
    public func deviceID() async throws -> String {
        try await device.load()
    }

    // MARK: AuthProvider

    /// Logs in with ``SocialPlusLogin`` or ``SocialPlusAccessTokenLogin``; the length
    /// limits and the access-token handler are checked before any request.
    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        switch credentials {
        case let login as SocialPlusLogin:
            try SocialPlusLimits.checkUserID(login.userID)
            if let displayName = login.displayName { try SocialPlusLimits.check(displayName, "displayName", limit: SocialPlusLimits.displayName) }
            if let authToken = login.authToken { try SocialPlusLimits.check(authToken, "authToken", limit: SocialPlusLimits.authToken, secret: true) }
            let deviceID = try await checkedDeviceID()
            return try await api.createSession(
                .init(
                    userID: login.userID, displayName: login.displayName, authToken: login.authToken,
                    deviceID: deviceID, deviceInfo: deviceInfo, login: login.authToken == nil ? .userID : .authToken))
        case let login as SocialPlusAccessTokenLogin:
            guard handlers.accessToken != nil else {
                throw AuthError(
                    .invalidState,
                    "an access-token login needs an access-token handler: register one first (SocialPlusProvider.register(accessTokenHandler:) or SocialPlusAccessTokenHandlerKey)"
                )
            }
            // No exchange: the JWT is the bearer of every call, checked with the user
            // lookup. Sent as an `authToken` to the session endpoint it would be refused
            // (longer than 100 characters, and not minted by social.plus).
            let userID = try Self.userID(inAccessToken: login.accessToken)
            return try await api.accessTokenSession(login.accessToken, userID: userID, endpoint: .accessTokenLogin)
        default:
            throw AuthError(
                .unsupportedCredentials, "social.plus logs in with SocialPlusLogin or SocialPlusAccessTokenLogin, not \(type(of: credentials))")
        }
    }

    /// Checks the session with `GET /api/v3/users/{userId}` and the session's token (for
    /// an access-token session, the app's JWT).
    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        let userID = try Self.userID(of: current)
        let user = try await api.user(userID, accessToken: current.tokens.accessToken)
        return AuthenticatedSession(tokens: current.tokens, user: user)
    }

    /// Secure logout: `DELETE /api/v4/sessions`; any failure but "already gone" throws.
    public func revoke(_ current: AuthenticatedSession) async throws {
        try await api.deleteSession(accessToken: current.tokens.accessToken)
    }

    /// Only a global ban (`403`, code `400312`) answered by the social.plus API ends the
    /// session; `400100` on an app request is an ordinary refusal ("not a member").
    public func inspect(_ response: TransportResponse, to request: TransportRequest) -> AuthError? {
        guard response.status == 403, Self.sameOrigin(request.url, configuration.baseURL),
            JSONObject.parsing(response.body)?.stringOrInteger("code") == SocialPlusErrorMapping.globalBanCode
        else { return nil }
        let message = JSONObject.parsing(response.body)?.string("message") ?? "the user is globally banned"
        return .terminated(.globalBan, "social.plus: \(message)", providerCode: SocialPlusErrorMapping.globalBanCode, httpStatus: 403)
    }

    /// The token must be non-empty and name its user (`attributes["user_id"]`, never a
    /// dot segment).
    public func checkTokens(_ tokens: SessionTokens) throws {
        guard !tokens.accessToken.isEmpty else { throw AuthError(.invalidArgument, "the access token is empty") }
        guard let userID = tokens.attributes[SocialPlusAPI.Attribute.userID], !userID.isEmpty else {
            throw AuthError(.invalidArgument, "social.plus tokens need the user's ID in attributes[\"\(SocialPlusAPI.Attribute.userID)\"]")
        }
        try SocialPlusLimits.checkNotDotSegment(userID, "attributes[\"\(SocialPlusAPI.Attribute.userID)\"]")
    }

    /// Expired 5 minutes before `expiresAt`; renewed 80 % into the usable lifetime.
    public func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        .proportional(issuedAt: tokens.issuedAt, expiresAt: tokens.expiresAt, fraction: 0.8, margin: 300)
    }

    // MARK: Helpers

    private func checkedDeviceID() async throws -> String {
        let deviceID = try await device.load()
        try SocialPlusLimits.check(deviceID, "deviceId", limit: SocialPlusLimits.deviceID)
        return deviceID
    }

    static func userID(of session: AuthenticatedSession) throws(AuthError) -> String {
        if let userID = session.tokens.attributes[SocialPlusAPI.Attribute.userID], !userID.isEmpty { return userID }
        if let userID = session.user?.id ?? session.session?.userID, !userID.isEmpty { return userID }
        throw AuthError(.invalidState, "the social.plus session does not name its user")
    }

    /// The `userId` claim of an access-token JWT, decoded locally (not verified: the
    /// server does that).
    static func userID(inAccessToken token: String) throws(AuthError) -> String {
        let jwt: JWT
        do { jwt = try JWT.decode(token) } catch {
            throw AuthError(.invalidArgument, "the social.plus access token is not a JWT", underlying: error)
        }
        guard case .string(let userID)? = jwt.claims["userId"], !userID.isEmpty else {
            throw AuthError(.invalidArgument, "the social.plus access token has no \"userId\" claim")
        }
        try SocialPlusLimits.checkUserID(userID, "the access token's userId claim")
        return userID
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}
