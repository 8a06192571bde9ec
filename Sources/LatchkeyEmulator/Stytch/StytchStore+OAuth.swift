import Foundation
internal import LatchkeyCrypto

/// OAuth through Stytch ("Sign in with Google"): the start remembers where to send the
/// browser back and the PKCE challenge; the provider's consent turns it into a one-time
/// token bound to that challenge; `oauth/authenticate` redeems the token with the verifier.
extension StytchStore {
    /// An OAuth start waiting for the provider's consent.
    struct OAuthAttempt: Sendable {
        var provider: String
        /// B2B: the organization the member signs in to; `nil` for a consumer start.
        var organizationID: String?
        var loginRedirectURL: String
        var signupRedirectURL: String
        var challenge: String?
        var expiresAt: Date
    }

    /// A token the redirect carried: whose, and bound to which challenge.
    struct OAuthToken: Sendable {
        var subjectID: String
        var organizationID: String?
        var provider: String
        var challenge: String?
        var expiresAt: Date
    }

    /// How long a start waits for consent, and a token for its exchange (10 minutes, unconfirmed).
    static let oauthLifetime: TimeInterval = 600

    /// Records a start; the answer is its ID, which the consent page carries.
    func startOAuth(_ attempt: OAuthAttempt) throws -> String {
        let id = try OpaqueToken.make(bytes: 16)
        oauthAttempts[id] = attempt
        return id
    }

    /// The start behind a consent page, while it lasts.
    func oauthAttempt(_ id: String) -> OAuthAttempt? {
        guard let attempt = oauthAttempts[id], attempt.expiresAt > clock.now else { return nil }
        return attempt
    }

    /// The user (consumer) or member (B2B) with `email` approved the start: the attempt is
    /// spent and a token issued; the answer is the URL the browser goes back to. `nil`
    /// when no such account exists (the page asks again).
    func consentOAuth(attemptID: String, email: String) throws -> String? {
        guard let attempt = oauthAttempt(attemptID) else { throw StytchError.oauthAttemptNotFound }
        let subjectID: String
        if let organizationID = attempt.organizationID {
            guard let member = members.values.first(where: { $0.organizationID == organizationID && $0.email == email.lowercased() && !$0.banned })
            else { return nil }
            subjectID = member.memberID
        } else {
            guard let user = user(email: email) else { return nil }
            subjectID = user.userID
        }
        oauthAttempts[attemptID] = nil
        let token = try OpaqueToken.make()
        oauthTokens[token] = OAuthToken(
            subjectID: subjectID, organizationID: attempt.organizationID, provider: attempt.provider,
            challenge: attempt.challenge, expiresAt: clock.now.addingTimeInterval(Self.oauthLifetime))
        let separator = URLComponents(string: attempt.loginRedirectURL)?.query == nil ? "?" : "&"
        return attempt.loginRedirectURL + separator + FormEncoding.encode([("stytch_token_type", "oauth"), ("token", token)])
    }

    /// Redeems a token once. A token started with a PKCE challenge needs the verifier that
    /// hashes to it; a verifier for a token started without one is refused too.
    func redeemOAuth(_ token: String, b2b: Bool, verifier: String?) throws(StytchError) -> OAuthToken {
        guard let record = oauthTokens.removeValue(forKey: token), record.expiresAt > clock.now, (record.organizationID != nil) == b2b else {
            throw .oauthTokenNotFound
        }
        switch (record.challenge, verifier) {
        case (nil, nil): break
        case (let challenge?, let verifier?) where PKCE.verifies(verifier, challenge: challenge): break
        default: throw .pkceMismatch
        }
        return record
    }
}
