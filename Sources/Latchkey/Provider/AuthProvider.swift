public import Foundation

/// Credentials a provider logs in with. Each adapter defines its own (Stytch password,
/// OTP and magic-link tokens; Auth0 password or authorization code; social.plus user
/// id with an optional auth token) and refuses others with
/// ``AuthError/Code/unsupportedCredentials``.
public protocol LoginCredentials: Sendable {}

/// What an adapter supplies to the session core: how to log in, check, renew and revoke
/// a session, how to authorize a request, and what every failure means.
///
/// The core never names a provider; it calls these methods and acts on the
/// ``AuthError/Code`` of what they throw:
/// - ``AuthError/Code/unrecoverable``: the session is cleared (`notLoggedIn`);
/// - ``AuthError/Code/terminated``: the session ends with the reason (`terminated`);
/// - ``AuthError/Code/needsUserAction``: the app must act (MFA); nothing is cleared;
/// - ``AuthError/Code/rateLimited`` and ``AuthError/Code/transient``: everything is
///   kept and the core backs off.
/// Errors of other types are passed through ``classify(_:)``.
///
/// Objects a method leaves `nil` in its ``AuthenticatedSession`` are "not reported": after
/// ``login(_:sessionDuration:)`` that means the provider has no such object; after
/// ``validate(_:)`` and ``renew(_:sessionDuration:)`` the core keeps what it had.
public protocol AuthProvider: Sendable {
    /// The registry identifier (`stytch`, `stytch-b2b`, `auth0`, `socialplus`). The
    /// vault refuses a record written under another identifier.
    var identifier: String { get }

    /// Whether authenticate calls take a session duration that extends the session
    /// (Stytch). The core then sends ``SessionOptions/sessionDuration`` (5 minutes by
    /// default) with each login, and checks durations against 5 minutes…366 days.
    var extendsSessions: Bool { get }

    /// Logs in with adapter-specific credentials.
    ///
    /// - Parameter sessionDuration: the session's length, for providers that extend
    ///   sessions; `nil` otherwise.
    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?) async throws -> AuthenticatedSession

    /// Checks a stored session with the provider without extending it (restore and
    /// heartbeat). May return fresh tokens (a new Stytch session JWT).
    func validate(_ tokens: SessionTokens) async throws -> AuthenticatedSession

    /// Renews the access token: with the refresh token, by logging in again through the
    /// app's handler, or by extending the session by `sessionDuration` when given.
    func renew(_ tokens: SessionTokens, sessionDuration: Duration?) async throws -> AuthenticatedSession

    /// Revokes the session at the provider (secure logout). Succeeds for a session the
    /// provider already considers gone.
    func revoke(_ tokens: SessionTokens) async throws

    /// Adds the session's credentials to a request bound for the app's API (usually
    /// `Authorization: Bearer <access token>`).
    func authorize(_ request: inout HTTPRequest, with tokens: SessionTokens) throws

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
    public var extendsSessions: Bool { false }

    public func authorize(_ request: inout HTTPRequest, with tokens: SessionTokens) throws {
        request.headers["Authorization"] = "Bearer \(tokens.accessToken)"
    }

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
}

extension AuthError {
    /// The default classification: ``AuthError`` as is; no response (``TransportError``)
    /// is transient; anything else is transient too, because failing to understand a
    /// provider must never sign a user out.
    public static func classifying(_ error: any Error) -> AuthError {
        switch error {
        case let error as AuthError: return error
        case let error as TransportError: return AuthError(.transient, "no response from the provider: \(error)", underlying: error)
        case is CancellationError: return AuthError(.cancelled, "the operation was cancelled")
        default: return AuthError(.transient, "unexpected failure: \(error)", underlying: error)
        }
    }
}

/// What a provider reports about a session after a login, a validation or a renewal.
public struct AuthenticatedSession: Sendable, Hashable {
    /// The session's tokens.
    public var tokens: SessionTokens
    /// The consumer session, if reported.
    public var session: Session?
    /// The user, if reported.
    public var user: User?
    /// The B2B member session, if reported.
    public var memberSession: MemberSession?
    /// The B2B member, if reported.
    public var member: Member?
    /// The B2B organization, if reported.
    public var organization: Organization?

    /// Creates a report.
    public init(tokens: SessionTokens, session: Session? = nil, user: User? = nil, memberSession: MemberSession? = nil,
                member: Member? = nil, organization: Organization? = nil) {
        self.tokens = tokens
        self.session = session
        self.user = user
        self.memberSession = memberSession
        self.member = member
        self.organization = organization
    }
}

/// When an access token counts as expired, and when to renew it ahead of that.
public struct RenewalPlan: Sendable, Hashable {
    /// From this moment the token is treated as expired (`tokenExpired`); `nil`: never.
    public var expiresAt: Date?
    /// From this moment the client renews in the background; `nil`: only on demand.
    public var renewAt: Date?

    /// Creates a plan.
    public init(expiresAt: Date?, renewAt: Date?) {
        self.expiresAt = expiresAt
        self.renewAt = renewAt
    }

    /// Renew once `fraction` of the usable lifetime has passed, the usable lifetime
    /// ending `margin` before the real expiry (social.plus: fraction 0.8, margin 5 minutes).
    public static func proportional(issuedAt: Date?, expiresAt: Date?, fraction: Double = 0.8,
                                    margin: TimeInterval = 0) -> RenewalPlan {
        guard let expiresAt else { return RenewalPlan(expiresAt: nil, renewAt: nil) }
        let usableEnd = expiresAt.addingTimeInterval(-margin)
        guard let issuedAt, issuedAt < usableEnd else {
            return RenewalPlan(expiresAt: usableEnd, renewAt: usableEnd.addingTimeInterval(-60))
        }
        let lifetime = usableEnd.timeIntervalSince(issuedAt)
        return RenewalPlan(expiresAt: usableEnd, renewAt: issuedAt.addingTimeInterval(lifetime * fraction))
    }
}
