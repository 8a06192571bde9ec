import Foundation
public import Latchkey

extension TinyAuthProvider {
    public func renew(
        _ request: RenewalRequest, current: AuthenticatedSession,
        preparation: RenewalPreparation
    ) async throws -> AuthenticatedSession {
        guard let refreshToken = current.tokens.refreshToken else {
            throw AuthError(.unrecoverable, "the stored session has no refresh token")
        }
        let answer: TinyAuthAPI.SessionAnswer = try await api.call("POST", "v1/sessions/refresh", body: ["refresh_token": refreshToken])
        return answer.session(at: clock.now)
    }
}
