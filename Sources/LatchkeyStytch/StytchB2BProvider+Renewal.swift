public import Latchkey

extension StytchB2BProvider {
    public func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession
    {
        try await calls.renew(request, current: current)
    }

    public func renewalPlan(for tokens: SessionTokens) -> RenewalPlan {
        StytchSessionCalls.renewalPlan(for: tokens)
    }
}
