/// Why the emulated Auth0 tenant revoked a refresh-token family: the first cause is kept
/// (a revoked family cannot be revoked again), so a judge can match the revocation to
/// the request or event that caused it.
public enum Auth0FamilyRevocation: Sendable, Equatable {
    /// Reuse detection: a spent token of the family was presented again (outside any
    /// reuse interval). `token` is that token, `generation` its place in the family.
    case reuse(token: String, generation: Int)
    /// `/oauth/revoke` with one of the family's tokens (a logout).
    case revoke
    /// The control API revoked the user's sessions (an administrator's revocation).
    case revokeSessions
    /// The user was deleted.
    case userDeleted

    /// A short name for logs and the control API (`reuse`, `revoke`, `revoke_sessions`, `user_deleted`).
    public var name: String {
        switch self {
        case .reuse: "reuse"
        case .revoke: "revoke"
        case .revokeSessions: "revoke_sessions"
        case .userDeleted: "user_deleted"
        }
    }
}
