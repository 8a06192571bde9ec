internal import Foundation

/// Credentials a provider logs in with. Each adapter defines its own (Stytch password,
/// OTP and magic-link tokens; Auth0 password or authorization code; social.plus user
/// id with an optional auth token) and refuses others with
/// ``AuthError/Code/unsupportedCredentials``.
public protocol LoginCredentials: Sendable {}

/// What an adapter supplies to the session core: how to log in, check, renew and revoke
/// a session, how to authorize a request, and what every failure means.
///
/// The core never names a provider; it calls these methods and acts on the
/// ``AuthError/Code`` of what they throw (see ``AuthError/Code`` for the full table):
/// - ``AuthError/Code/unrecoverable``: the session is cleared (`notLoggedIn`);
/// - ``AuthError/Code/terminated``: the session ends with the reason (`terminated`);
/// - ``AuthError/Code/renewAndRecheck``: the provider refused this access token — the
///   core renews once and checks again; only a second refusal ends the session, and not
///   even that when the refusal's ``AuthError/repeatedRefusalEndsSession`` is `false`
///   (then the check is transient);
/// - ``AuthError/Code/needsUserAction``: the user must act (MFA); background retries stop
///   and the state becomes ``SessionState/needsUserAction(_:)``; nothing is cleared;
/// - ``AuthError/Code/rateLimited`` and ``AuthError/Code/transient``: everything is
///   kept and the core backs off (``AuthError/retryAfter`` when the provider said).
/// Errors of other types are passed through ``classify(_:)``.
///
/// ## The one rule for objects
/// An object an ``AuthenticatedSession`` leaves `nil` is *not reported*: the core keeps
/// what it had. After a login or ``AuthClient/update(tokens:)`` it had nothing, so `nil`
/// there means the provider has no such object. Token ``SessionTokens/attributes`` merge
/// the same way, key by key (new over old).
///
/// ## App code
/// ``prepareRenewal(_:current:)`` is the one method that may run app code (a social.plus
/// session handler, an access-token handler). The core calls it before it takes the
/// store's lock, and app code called from it may call back into the client (`send`,
/// `accessToken`): such calls get the current token and never wait for the renewal
/// they are part of.
public protocol AuthProvider: Sendable {
    /// The registry identifier (`stytch`, `stytch-b2b`, `auth0`, `socialplus`). The
    /// vault refuses a record written under another identifier.
    var identifier: String { get }

    /// Where this adapter's credentials go and for which project or application: the
    /// client binds stored sessions to it and refuses one made with another (see
    /// ``EndpointIdentity``). Defaults to the bare ``identifier`` (bound to nothing more).
    var endpoint: EndpointIdentity { get }

    /// The session lengths the provider accepts on authenticate calls, for providers
    /// whose calls take one (Stytch: 5 minutes to 366 days); `nil` for the others.
    /// The core checks requested durations against it before any request.
    var sessionDurationBounds: ClosedRange<Duration>? { get }

    /// The shortest validity a token handed out must have when neither the caller nor
    /// ``SessionOptions/minimumTokenTTL`` says. Default 30 seconds.
    var defaultMinimumTokenTTL: Duration { get }

    /// Whether tokens asked for another audience or scope are kept beside the session's
    /// own, one set per (audience, scope) — as Auth0.swift keeps API credentials — instead
    /// of replacing the session's tokens. The renewal that gets one still runs under the
    /// store's lock and its rotated refresh token is saved for all. Default `false`.
    var keepsTokenSetsApart: Bool { get }

    /// Logs in with adapter-specific credentials.
    ///
    /// - Parameters:
    ///   - credentials: what the app passed to ``AuthClient/login(_:sessionDuration:)``;
    ///     refuse other adapters' credentials with ``AuthError/Code/unsupportedCredentials``.
    ///   - sessionDuration: the session's length, for providers with
    ///     ``sessionDurationBounds``; `nil` otherwise.
    ///   - pending: the user action a previous login left unfinished (a Stytch B2B
    ///     intermediate session, an Auth0 `mfa_token`), when the client holds one.
    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession

    /// Checks a session with the provider without extending it (restore, heartbeat,
    /// tokens from elsewhere). May return fresh tokens (a new Stytch session JWT).
    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession

    /// Gathers what a renewal needs from the app, outside every lock of the core (a
    /// social.plus auth token from the app's session handler). Default: nothing.
    ///
    /// Throw ``AuthError/Code/transient`` with a ``AuthError/retryAfter`` when the app is
    /// unable to help now (social.plus: asked again after 10 minutes).
    func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation

    /// Renews the session as `request` asks: a fresh access token (refresh grant, a new
    /// login, a Stytch `sessions/authenticate` with a duration), with another scope or
    /// audience, or extended by ``RenewalRequest/sessionDuration``. Runs under the
    /// store's lock; it must not call app code (use ``prepareRenewal(_:current:)``).
    func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession

    /// Revokes the session at the provider (secure logout). Succeeds for a session the
    /// provider already considers gone.
    func revoke(_ current: AuthenticatedSession) async throws

    /// Adds the session's credentials to a request bound for the app's API (usually
    /// `Authorization: Bearer <access token>`): what ``prepare(_:with:)`` does by default.
    func authorize(_ request: inout TransportRequest, with tokens: SessionTokens) throws

    /// Prepares one attempt of an app request for ``AuthClient/send(_:)``: async and called
    /// again for every attempt, so an adapter can sign each one (a DPoP proof, RFC 9449,
    /// is bound to one request and used once). Default: ``authorize(_:with:)``.
    func prepare(_ request: TransportRequest, with tokens: SessionTokens) async throws -> TransportRequest

    /// Sees every answer to a request ``prepare(_:with:)`` made, and says whether it asks
    /// for the same request again with a fresh proof (a DPoP `use_dpop_nonce` challenge
    /// carrying the nonce to sign). ``AuthClient/send(_:)`` then prepares and sends it once
    /// more, before any renewal; a second challenge is answered like any refusal.
    /// Default: `false`.
    func shouldRetry(_ response: TransportResponse, to request: TransportRequest) async -> Bool

    /// The app logged out (the vault is cleared): drop what the adapter keeps for the
    /// session outside it (a DPoP key pair). The logout has happened whatever this finds:
    /// failures are the adapter's to log. Default: nothing.
    func loggedOut() async

    /// Looks at the app's own response to a request ``AuthClient/send(_:)`` made, and
    /// returns an error when it says the session is over (a ban answered to an app
    /// request). Only ``AuthError/endsSession`` errors act: the session ends at once
    /// and `send` throws. Default: `nil` (a 401 is handled by the core: renew, retry once).
    func inspect(_ response: TransportResponse, to request: TransportRequest) -> AuthError?

    /// Checks that tokens obtained elsewhere are complete for this provider (both tokens
    /// where it has two) before ``AuthClient/update(tokens:)`` uses them.
    ///
    /// - Throws: ``AuthError/Code/invalidArgument`` naming what is missing.
    func checkTokens(_ tokens: SessionTokens) throws

    /// When the access token counts as expired and when to renew it ahead of that.
    func renewalPlan(for tokens: SessionTokens) -> RenewalPlan

    /// Maps an error that is not an ``AuthError`` to one.
    func classify(_ error: any Error) -> AuthError
}

extension AuthProvider {
    public var sessionDurationBounds: ClosedRange<Duration>? { nil }

    public var endpoint: EndpointIdentity { EndpointIdentity(provider: identifier) }

    public var defaultMinimumTokenTTL: Duration { .seconds(30) }

    public var keepsTokenSetsApart: Bool { false }

    public func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation {
        RenewalPreparation()
    }

    public func authorize(_ request: inout TransportRequest, with tokens: SessionTokens) throws {
        request.headers["Authorization"] = "Bearer \(tokens.accessToken)"
    }

    public func prepare(_ request: TransportRequest, with tokens: SessionTokens) async throws -> TransportRequest {
        var prepared = request
        try authorize(&prepared, with: tokens)
        return prepared
    }

    public func shouldRetry(_ response: TransportResponse, to request: TransportRequest) async -> Bool { false }

    public func loggedOut() async {}

    public func inspect(_ response: TransportResponse, to request: TransportRequest) -> AuthError? { nil }

    public func checkTokens(_ tokens: SessionTokens) throws {
        guard !tokens.accessToken.isEmpty else { throw AuthError(.invalidArgument, "the access token is empty") }
    }

    /// By default the token counts as expired at its expiry, and renewal starts when 80 %
    /// of its lifetime has passed (or 60 seconds before expiry when the issue time is unknown).
    public func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        RenewalPlan.proportional(issuedAt: tokens.issuedAt, expiresAt: tokens.expiresAt)
    }

    public func classify(_ error: any Error) -> AuthError {
        AuthError.classifying(error)
    }

    /// Checks `duration` against ``sessionDurationBounds``.
    ///
    /// - Throws: ``AuthError/Code/invalidArgument`` naming the bounds, or when the
    ///   provider takes no session duration.
    public func checkSessionDuration(_ duration: Duration) throws(AuthError) {
        guard let bounds = sessionDurationBounds else {
            throw AuthError(.invalidArgument, "provider \"\(identifier)\" does not take a session duration")
        }
        guard bounds.contains(duration) else {
            throw AuthError(
                .invalidArgument,
                "a session duration for \"\(identifier)\" must be between \(Self.minutes(bounds.lowerBound)) and \(Self.minutes(bounds.upperBound)) minutes; got \(Self.minutes(duration)) minutes"
            )
        }
    }

    private static func minutes(_ duration: Duration) -> String {
        let seconds = duration.timeInterval
        let minutes = seconds / 60
        return minutes.rounded() == minutes ? String(Int64(minutes)) : String(format: "%.2f", minutes)
    }
}

extension AuthError {
    /// The default classification: ``AuthError`` as is; no response (``TransportError``)
    /// is transient, except a build without a transport (``TransportError/Code/notConfigured``:
    /// ``AuthError/Code/configuration``); anything else is transient too, because failing to understand a
    /// provider must never sign a user out.
    public static func classifying(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError: return error
        case let error as TransportError where error.code == .notConfigured:
            // A build without a transport: a fault of the app's set-up, not of the provider.
            return AuthError(.configuration, error.message, underlying: error)
        case let error as TransportError: return AuthError(.transient, "no response from the provider: \(error)", underlying: error)
        case is CancellationError: return AuthError(.cancelled, "the operation was cancelled")
        default: return AuthError(.transient, "unexpected failure: \(error)", underlying: error)
        }
    }
}
