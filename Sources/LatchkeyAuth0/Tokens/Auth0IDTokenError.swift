/// An ID token that failed validation, naming the claim (or header field) at fault.
///
/// The core sees it as the ``/Latchkey/AuthError/underlying`` of an
/// ``/Latchkey/AuthError/Code/unrecoverable`` error with provider code `id_token_invalid`:
/// an answer whose ID token cannot be trusted is not used.
public struct Auth0IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The claim or header field that failed: `alg`, `kid`, `signature`, `iss`, `sub`,
    /// `aud`, `azp`, `exp`, `nbf`, `iat`, `nonce`, `auth_time`, `org_id`, `org_name`,
    /// `id_token` when an answer that had to carry one did not, or `token` when the
    /// token cannot be read at all.
    public var claim: String
    /// Why, without the token.
    public var reason: String

    /// Creates an error.
    public init(claim: String, _ reason: String) {
        self.claim = claim
        self.reason = reason
    }

    public var description: String { "ID token claim \"\(claim)\": \(reason)" }
}
