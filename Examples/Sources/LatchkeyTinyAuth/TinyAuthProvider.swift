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

/// The credentials TinyAuth logs in with.
public struct TinyAuthCredentials: LoginCredentials {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// The TinyAuth adapter.
public struct TinyAuthProvider: AuthProvider {
    /// The identifier a configuration names (`"provider": "tinyauth"`).
    public static let providerID = "tinyauth"

    /// The settings the adapter takes, checked by the registry before the adapter is built:
    /// an unknown key, a missing required one or a malformed URL is a configuration error
    /// naming the key. A key marked `secret: true` (none here) draws a warning when it is
    /// written in the configuration file instead of `LATCHKEY_SETTING_<NAME>`.
    public static let schema = ProviderSettingsSchema([
        .init("base_url", .url, required: true, summary: "the service's root URL (plain http only for a loopback address)"),
        .init("client_id", required: true, summary: "the app's client ID, sent as X-Client-ID"),
    ])

    /// What apps register: the registry builds the adapter from the checked settings and
    /// the core's transport, clock and logger.
    public static let factory = ProviderFactory(identifier: providerID, schema: schema) { context in
        try TinyAuthProvider(context)
    }

    public var identifier: String { Self.providerID }

    private let baseURL: URL
    private let clientID: String
    private let context: ProviderContext

    init(_ context: ProviderContext) throws(AuthError) {
        let baseURL = try context.settings.url("base_url")!  // required: the schema was checked
        let host = baseURL.host() ?? ""
        guard baseURL.scheme == "https" || host == "localhost" || host.hasPrefix("127.") || host == "::1" else {
            throw AuthError(.configuration, "setting \"settings.base_url\" for provider \"tinyauth\" must use https (plain http only for a loopback address)")
        }
        self.baseURL = baseURL
        self.clientID = try context.settings.required("client_id")
        self.context = context
    }

    // MARK: The four calls

    public func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        guard let credentials = credentials as? TinyAuthCredentials else {
            throw AuthError(.unsupportedCredentials, "tinyauth takes TinyAuthCredentials")
        }
        let answer: SessionAnswer = try await call("POST", "v1/sessions", body: ["username": credentials.username, "password": credentials.password])
        return answer.session(at: context.clock.now)
    }

    public func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        let user: UserAnswer = try await call("GET", "v1/me", bearer: current.tokens.accessToken)
        var checked = current
        checked.user = user.user
        return checked
    }

    public func renew(_ request: RenewalRequest, current: AuthenticatedSession,
                      preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        guard let refreshToken = current.tokens.refreshToken else {
            throw AuthError(.unrecoverable, "the stored session has no refresh token")
        }
        let answer: SessionAnswer = try await call("POST", "v1/sessions/refresh", body: ["refresh_token": refreshToken])
        return answer.session(at: context.clock.now)
    }

    public func revoke(_ current: AuthenticatedSession) async throws {
        guard let refreshToken = current.tokens.refreshToken else { return }
        do {
            let _: Empty = try await call("POST", "v1/sessions/revoke", body: ["refresh_token": refreshToken])
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

    // MARK: The wire

    private struct Empty: Decodable {}

    private struct UserAnswer: Decodable {
        var id: String
        var email: String?
        var name: String?
        var user: User { User(id: id, email: email, name: name) }
    }

    private struct SessionAnswer: Decodable {
        var access_token: String
        var refresh_token: String
        var expires_in: Int
        var user: UserAnswer

        func session(at now: Date) -> AuthenticatedSession {
            AuthenticatedSession(tokens: SessionTokens(accessToken: access_token, refreshToken: refresh_token, issuedAt: now,
                                                       expiresAt: now.addingTimeInterval(TimeInterval(expires_in))),
                                 user: user.user)
        }
    }

    private struct ErrorAnswer: Decodable { var error: String }

    /// Sends one call and decodes its answer, or throws the failure classified for the core.
    private func call<Answer: Decodable>(_ method: String, _ path: String, body: [String: String]? = nil,
                                         bearer: String? = nil) async throws -> Answer {
        var request = HTTPRequest(method: method, url: baseURL.appending(path: path), headers: ["X-Client-ID": clientID])
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try JSONEncoder().encode(body)
        }
        if let bearer { request.headers["Authorization"] = "Bearer \(bearer)" }
        let response = try await context.transport.send(request)  // a TransportError is classified transient
        guard (200 ..< 300).contains(response.status) else {
            throw classify(response, from: path)
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: response.body.isEmpty ? Data("{}".utf8) : response.body)
        } catch {
            // Not understanding the provider must never sign a user out.
            throw AuthError(.transient, "tinyauth answered \(path) with an unreadable body", httpStatus: response.status, underlying: error)
        }
    }

    /// The one place that decides what a failure means. Narrowly: only the provider's
    /// definitive "this session is over" ends a session.
    private func classify(_ response: HTTPResponse, from path: String) -> AuthError {
        let code = (try? JSONDecoder().decode(ErrorAnswer.self, from: response.body))?.error
        let message = "tinyauth \(path): \(response.status) \(code ?? "(no error code)")"
        switch (response.status, path) {
        case (401, "v1/me"):
            // An expired or unknown access token: the session may well be alive.
            return AuthError(.renewAndRecheck, message, providerCode: code, httpStatus: 401)
        case (401, _):
            // A refused password or refresh token: the provider's final word.
            return AuthError(.unrecoverable, message, providerCode: code, httpStatus: 401)
        case (429, _):
            return AuthError.rateLimited(retryAfter: response.retryAfter, message, providerCode: code)
        default:
            // 5xx, a proxy's page, anything else: keep the session and try again later.
            return AuthError(.transient, message, providerCode: code, httpStatus: response.status)
        }
    }
}
