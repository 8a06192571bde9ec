import Foundation
public import Latchkey

// A fourth provider, added without touching Latchkey: this module depends on the
// `Latchkey` product only, as LatchkeyStytch, LatchkeyAuth0 and LatchkeySocialPlus do,
// and apps register it the same way (`ProviderRegistry.shared.register(TinyAuthProvider.factory)`).
//
// TinyAuth is a made-up service with the shape most token providers have (it is served
// locally by the TinyAuthService module of this package):
//
// | call | request | answer |
// |---|---|---|
// | log in | `POST v1/sessions` `{"username","password"}` | `{"access_token","refresh_token","expires_in","user":{"id","email","name"}}` |
// | renew | `POST v1/sessions/refresh` `{"refresh_token"}` | the same; the refresh token is rotated (the old one stops working) |
// | check | `GET v1/me`, `Authorization: Bearer <access token>` | the user |
// | log out | `POST v1/sessions/revoke` `{"refresh_token"}` | 204 |
//
// Every call carries `X-Client-ID`. Errors are `{"error": "<code>"}` with a 4xx or 5xx.

/// The TinyAuth adapter, laid out as every adapter is: this file (identifier, factory,
/// `init(context:)`, login, check, revoke), `TinyAuthProvider+Renewal.swift`,
/// `Configuration/` (schema, `init(settings:)`), `Credentials/` and `Wire/` (the calls and
/// what each failure means).
public struct TinyAuthProvider: AuthProvider {
    /// The identifier a configuration names (`"provider": "tinyauth"`).
    public static let identifier = "tinyauth"

    /// What apps register: the registry checks the settings against
    /// ``TinyAuthConfiguration/schema`` and builds the adapter from them and the core's
    /// transport, clock and logger.
    public static let factory = ProviderFactory(identifier: identifier, schema: TinyAuthConfiguration.schema) { context in
        try TinyAuthProvider(context: context)
    }

    public var identifier: String { Self.identifier }

    /// Where the adapter talks to, and as which app.
    public let configuration: TinyAuthConfiguration
    let api: TinyAuthAPI
    let clock: any SessionClock

    /// Builds the adapter from the core's context.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the offending setting.
    public init(context: ProviderContext) throws(AuthError) {
        configuration = try TinyAuthConfiguration(settings: context.settings)
        api = TinyAuthAPI(configuration: configuration, transport: context.transport)
        clock = context.clock
    }

    // MARK: The four calls

    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? TinyAuthCredentials else {
            throw AuthError(.unsupportedCredentials, "tinyauth takes TinyAuthCredentials")
        }
        let answer: TinyAuthAPI.SessionAnswer = try await api.call(
            "POST", "v1/sessions", body: ["username": credentials.username, "password": credentials.password])
        return answer.session(at: clock.now)
    }

    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        let user: TinyAuthAPI.UserAnswer = try await api.call("GET", "v1/me", bearer: current.tokens.accessToken)
        var checked = current
        checked.user = user.user
        return checked
    }

    public func revoke(_ current: AuthenticatedSession) async throws {
        guard let refreshToken = current.tokens.refreshToken else { return }
        do {
            let _: TinyAuthAPI.Empty = try await api.call("POST", "v1/sessions/revoke", body: ["refresh_token": refreshToken])
        } catch let error as AuthError where error.code == .unrecoverable {
            return  // already gone at the provider: that is what a revoke wants
        }
    }

    /// Tokens from elsewhere (``AuthClient/update(tokens:)``) need both tokens.
    public func checkTokens(_ tokens: SessionTokens) throws {
        guard !tokens.accessToken.isEmpty, !(tokens.refreshToken ?? "").isEmpty else {
            throw AuthError(.invalidArgument, "tinyauth needs an access token and a refresh token")
        }
    }

    // `authorize` (a bearer header), `renewalPlan` (renew at 80 % of the token's life),
    // `prepareRenewal` (no app code to ask) and `inspect` (nothing in the app's own
    // responses ends a session) keep the protocol's defaults.
}
