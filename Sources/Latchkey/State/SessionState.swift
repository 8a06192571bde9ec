/// Where a session stands. The same machine serves every provider; its transitions are
/// social.plus's documented flow (see ``SessionStateMachine``).
public enum SessionState: Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in.
    case notLoggedIn
    /// A login (or a hydration from tokens) is under way.
    case establishing
    /// Signed in, with an access token that is valid or being renewed ahead of expiry.
    case established
    /// Signed in, but the access token expired and has not been renewed yet.
    case tokenExpired
    /// The provider ended the session (ban, deletion, revoked authorization). Only a
    /// logout leaves this state.
    case terminated(TerminationReason)

    public var description: String {
        switch self {
        case .notLoggedIn: "notLoggedIn"
        case .establishing: "establishing"
        case .established: "established"
        case .tokenExpired: "tokenExpired"
        case .terminated(let reason): "terminated(\(reason))"
        }
    }
}

/// Why a provider ended a session.
public enum TerminationReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The user is banned from the whole application (social.plus `isGlobalBanned`, `400312`).
    case globalBan
    /// The user was deleted.
    case userDeleted
    /// The provider no longer accepts the session's credentials for this user (social.plus `400100`).
    case unauthorized

    public var description: String { rawValue }
}
