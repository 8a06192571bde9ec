internal import Foundation

extension AuthClient {
    // MARK: - Token sets for other audiences and scopes

    /// Whether `request` asks for a token kept apart from the session's own (`tokens`):
    /// another audience or scope, at a provider that keeps them apart.
    nonisolated func keepsApart(_ request: RenewalRequest, from tokens: SessionTokens) -> Bool {
        provider.keepsTokenSetsApart && request.sessionDuration == nil && (request.scope != nil || request.audience != nil)
            && !request.isSatisfied(by: tokens)
    }

    /// A token for another audience or scope: the set kept for it while it has `wanted`
    /// seconds left, else a renewal for it (shared with callers asking the same), which
    /// leaves the session's own token and every other set as they are.
    func tokenSet(for request: RenewalRequest, minTTL wanted: TimeInterval) async throws -> SessionTokens {
        guard let record else { throw notSignedInError() }
        if let set = record.tokenSet(serving: request) {
            if timeLeft(provider.renewalPlan(for: set)) >= wanted { return set }
            // A set a renewal already gave, too short-lived for this caller: an error, not a loop.
            if set.accessToken == tooShortLived, let lifetime = Self.lifetime(of: set), lifetime < wanted {
                throw Self.largeMinTTL(lifetime: lifetime, asked: wanted)
            }
        }
        return try await renewed(for: request, minTTL: wanted)
    }

    /// What a renewal for `request` hands its callers from `record`: the set kept for it,
    /// or the session's own tokens.
    static func served(_ request: RenewalRequest, by record: VaultRecord, apart: Bool) -> SessionTokens {
        guard apart, let set = record.tokenSet(serving: request) else { return record.tokens }
        return set
    }
}
