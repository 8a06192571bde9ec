internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// The session calls both adapters share — `sessions/authenticate` (check or extend) and
/// `sessions/revoke`, under `b2b/` for B2B — and the rules they share: durations in
/// minutes within Stytch's bounds, and the 5-minute JWT's renewal plan.
struct StytchSessionCalls: Sendable {
    let api: StytchAPIClient
    let b2b: Bool
    /// Sent with checks and plain renewals when ``StytchConfiguration/autoExtend`` is on.
    let autoExtendDuration: Duration?

    /// 5 minutes to 366 days.
    static let durationBounds: ClosedRange<Duration> = .seconds(5 * 60) ... .seconds(527_040 * 60)

    private var authenticatePath: StytchPath { b2b ? .b2bSessionsAuthenticate : .sessionsAuthenticate }
    private var revokePath: StytchPath { b2b ? .b2bSessionsRevoke : .sessionsRevoke }

    /// `sessions/authenticate {}`: a check that does not extend the session — or, with
    /// automatic extension on, the iOS SDK's opt-in: each check (every heartbeat tick)
    /// sends the session duration.
    func validate(_ current: AuthenticatedSession) async throws(AuthError) -> AuthenticatedSession {
        try await authenticate(current, minutes: autoExtendDuration.map(Self.minutes))
    }

    /// `sessions/authenticate` with the requested duration; a plain renewal sends the
    /// auto-extension duration when that is on, else `{}` (a fresh JWT without extending).
    func renew(_ request: RenewalRequest, current: AuthenticatedSession) async throws(AuthError) -> AuthenticatedSession {
        let duration = request.sessionDuration ?? autoExtendDuration
        return try await authenticate(current, minutes: duration.map(Self.minutes))
    }

    /// `sessions/revoke {}`.
    func revoke(_ current: AuthenticatedSession) async throws(AuthError) {
        _ = try await api.post(revokePath, [:], sessionToken: try sessionToken(current))
    }

    private func authenticate(_ current: AuthenticatedSession, minutes: Int?) async throws(AuthError) -> AuthenticatedSession {
        var body = JSONObject()
        if let minutes { body["session_duration_minutes"] = .number(Double(minutes)) }
        let data = try await api.post(authenticatePath, body, sessionToken: try sessionToken(current))
        return try report(data, path: authenticatePath)
    }

    /// The answer as a report: a member session for B2B, a session and user otherwise.
    func report(_ data: JSONObject, path: StytchPath) throws(AuthError) -> AuthenticatedSession {
        b2b ? try StytchObjects.member(data, path: path, now: api.clock.now) : try StytchObjects.consumer(data, path: path, now: api.clock.now)
    }

    private func sessionToken(_ current: AuthenticatedSession) throws(AuthError) -> String {
        guard let token = current.tokens.sessionToken, !token.isEmpty else {
            throw AuthError(.invalidArgument, "the Stytch session has no session token")
        }
        return token
    }

    /// Both tokens, non-empty.
    static func checkTokens(_ tokens: SessionTokens) throws(AuthError) {
        guard !tokens.accessToken.isEmpty else { throw AuthError(.invalidArgument, "the Stytch session JWT (accessToken) is empty") }
        guard let token = tokens.sessionToken, !token.isEmpty else {
            throw AuthError(
                .invalidArgument, "the Stytch session token (sessionToken) is missing: both the session token and the session JWT are required")
        }
    }

    /// The JWT counts as expired at its `exp` (or 5 minutes after it was issued), and is
    /// renewed when 80 % of that has passed (4 minutes).
    static func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        let expiresAt = tokens.expiresAt ?? tokens.issuedAt?.addingTimeInterval(StytchObjects.jwtLifetime)
        return RenewalPlan.proportional(issuedAt: tokens.issuedAt, expiresAt: expiresAt)
    }

    /// Whole minutes (rounded), clamped to Stytch's bounds; the core has checked the bounds.
    static func minutes(_ duration: Duration) -> Int {
        let seconds = duration.components.seconds
        let minutes = seconds / 60 + (seconds % 60 >= 30 ? 1 : 0)
        return Int(clamping: min(max(minutes, 5), 527_040))
    }
}
