internal import Foundation
public import Latchkey

extension Auth0Provider {
    public func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession
    {
        try checkSessionNotOver(current.tokens)
        guard let refreshToken = current.tokens.refreshToken else {
            throw AuthError(
                .unrecoverable, "the session has no refresh token (ask for the offline_access scope); log in again",
                providerCode: "no_refresh_token")
        }
        var fields = [("grant_type", GrantType.refreshToken), ("refresh_token", refreshToken)]
        // With an audience, a scope always carries openid (Auth0.swift's includeRequiredScope):
        // without it the answer has no ID token.
        let scope = request.audience == nil ? request.scope : request.scope.map(Auth0Configuration.withOpenID)
        if let scope { fields.append(("scope", scope)) }
        if let audience = request.audience { fields.append(("audience", audience)) }
        let response: TokenResponse
        do { response = try await api.token(fields, call: .refresh) } catch let error as AuthError
            where error.providerCode == "access_denied" && (request.scope != nil || request.audience != nil)
        {
            // Refused for what this caller asked (a scope or API beyond the grant): the
            // session itself is fine, and nothing retries the request.
            throw AuthError(
                .invalidArgument, error.message, providerCode: error.providerCode, httpStatus: error.httpStatus,
                underlying: error.underlying)
        }
        logger.debug("refresh grant answered", metadata: ["rotated": "\(response.refreshToken != nil)", "reason": "\(request.reason)"])
        return try await session(
            from: response, scope: request.scope ?? current.tokens.scope,
            audience: request.audience ?? current.tokens.audience, previous: current)
    }

    /// The access token counts as expired at its expiry and is renewed when 80 % of its
    /// lifetime has passed; both move up to the session's end (`session_expiry` − 30 s)
    /// when the ID token carried one, so the session ends on time.
    public func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        let plan = RenewalPlan.proportional(issuedAt: tokens.issuedAt, expiresAt: tokens.expiresAt)
        guard let end = Self.sessionEnd(of: tokens) else { return plan }
        return RenewalPlan(expiresAt: min(plan.expiresAt ?? end, end), renewAt: min(plan.renewAt ?? end, end))
    }

    /// When the session ends (`session_expiry` − 30 s), when the ID token said.
    static func sessionEnd(of tokens: SessionTokens) -> Date? {
        guard let text = tokens.attributes["session_expiry"], let seconds = Double(text), seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds - sessionExpiryMargin)
    }

    func checkSessionNotOver(_ tokens: SessionTokens) throws(AuthError) {
        guard let end = Self.sessionEnd(of: tokens), end <= clock.now else { return }
        throw AuthError(.unrecoverable, "the Auth0 session reached its end (session_expiry); log in again", providerCode: "session_expired")
    }
}
