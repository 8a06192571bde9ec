internal import Foundation

/// Tokens for another audience or scope, kept beside the session's own, one set per
/// (audience, scope) as asked — as Auth0.swift keeps its API credentials. The refresh
/// token that renews them is the session's, shared: a set holds only what the renewal
/// for it answered (access token, times, attributes).
struct TokenSet: Sendable, Hashable {
    /// The audience asked (`nil`: the session's).
    var audience: String?
    /// The scope asked (`nil`: the session's).
    var scope: String?
    var tokens: SessionTokens

    /// Whether this set is the one `request` asks for (scopes compare as sets).
    func serves(_ request: RenewalRequest) -> Bool {
        request.audience == audience && RenewalRequest.sameScope(request.scope, scope)
    }
}

extension VaultRecord {
    /// The set kept for what `request` asks, if any.
    func tokenSet(serving request: RenewalRequest) -> SessionTokens? {
        tokenSets.first { $0.serves(request) }?.tokens
    }

    /// This record after a renewal for another audience or scope (`report` answers
    /// `request`): the session's own access token stays; what the grant renewed for every
    /// set — the refresh token (rotated), the session token, the ID token and its user —
    /// is taken; the new access token becomes the set for `request`, replacing the old.
    func keepingTokenSet(_ report: AuthenticatedSession, for request: RenewalRequest, validatedAt: Date) -> VaultRecord {
        var record = self
        record.tokens.refreshToken = report.tokens.refreshToken ?? tokens.refreshToken
        record.tokens.sessionToken = report.tokens.sessionToken ?? tokens.sessionToken
        record.tokens.idToken = report.tokens.idToken ?? tokens.idToken
        if let user = report.user { record.user = user }
        let set = SessionTokens(
            accessToken: report.tokens.accessToken, issuedAt: report.tokens.issuedAt, expiresAt: report.tokens.expiresAt,
            attributes: report.tokens.attributes)
        record.tokenSets.removeAll { $0.serves(request) }
        record.tokenSets.append(TokenSet(audience: request.audience, scope: request.scope, tokens: set))
        if record.tokenSets.count > Self.maximumTokenSets { record.tokenSets.removeFirst(record.tokenSets.count - Self.maximumTokenSets) }
        record.lastValidatedAt = validatedAt
        return record
    }
}
