public import Foundation

/// One refresh grant the emulated Auth0 tenant applied, as its refresh log keeps it: when,
/// which family and generation the presented token was, and what came of it. A request
/// whose client has gone (killed, timed out) is applied and recorded all the same, which
/// is what lets a soak match a revoked family to the request that revoked it.
public struct Auth0RefreshRecord: Sendable, Equatable, Codable {
    /// What the tenant did with the presented token.
    public enum Outcome: String, Sendable, Codable {
        /// Exchanged; with rotation a new token of the next generation was issued.
        case rotated
        /// A spent token presented again: the family was revoked (reuse detection).
        case reuseRevokedFamily = "reuse_revoked_family"
        /// Refused: unknown, expired, its family already revoked, or its user blocked.
        case refused
        /// Answered `mfa_required` (a step-up); the token stays as it was.
        case mfaRequired = "mfa_required"
    }

    /// The emulator clock's time when the grant was applied.
    public var date: Date
    /// The presented token's family (nil for a token the tenant never issued).
    public var family: String?
    /// The presented token's generation in its family (1 = issued at login; 0 when unknown).
    public var generation: Int
    public var outcome: Outcome
    /// The generation of the token issued in exchange, when one was.
    public var issuedGeneration: Int?
    /// The user the presented token was issued to (nil for a token the tenant never issued).
    public var user: String?

    /// A record.
    public init(date: Date, family: String?, generation: Int, outcome: Outcome, issuedGeneration: Int? = nil, user: String? = nil) {
        self.date = date
        self.family = family
        self.generation = generation
        self.outcome = outcome
        self.issuedGeneration = issuedGeneration
        self.user = user
    }
}
