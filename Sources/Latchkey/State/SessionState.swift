/// Where a session stands. The same machine serves every provider; its transitions are
/// social.plus's documented flow, with three additions for what the other providers
/// need (see ``SessionStateMachine``).
public enum SessionState: Sendable, Hashable, CustomStringConvertible {
    /// The stored session could not be read yet (the keyring refused, a file was
    /// locked or unreadable). Nothing was cleared; the client keeps trying, and
    /// ``AuthClient/restoreError`` says why. Not the same as `notLoggedIn`.
    case restoring
    /// Nobody is signed in.
    case notLoggedIn
    /// A login (or a hydration from tokens) is under way.
    case establishing
    /// Signed in, with an access token that is valid or being renewed ahead of expiry.
    case established
    /// Signed in, but the access token expired and has not been renewed yet.
    case tokenExpired
    /// The user must act before the session can continue (MFA during a login or a
    /// renewal, a B2B intermediate session). Background renewal stops; the app finishes
    /// it with ``AuthClient/login(_:sessionDuration:)`` or logs out. The action's
    /// ``UserAction/expiresAt`` ends it (`notLoggedIn`) when it passes.
    case needsUserAction(UserAction)
    /// The provider ended the session (ban, deletion, revoked authorization). Only a
    /// logout leaves this state.
    case terminated(TerminationReason)

    public var description: String {
        switch self {
        case .restoring: "restoring"
        case .notLoggedIn: "notLoggedIn"
        case .establishing: "establishing"
        case .established: "established"
        case .tokenExpired: "tokenExpired"
        case .needsUserAction(let action): "needsUserAction(\(action.kind))"
        case .terminated(let reason): "terminated(\(reason))"
        }
    }
}

/// Why a provider ended a session. Extensible: adapters add their own reasons
/// (`TerminationReason("sessionRevoked")`) beside the documented three.
public struct TerminationReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The reason's name, e.g. `globalBan`.
    public let rawValue: String

    /// Creates a reason.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a reason.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    /// The user is banned from the whole application (social.plus `isGlobalBanned`, `400312`).
    public static let globalBan = TerminationReason("globalBan")
    /// The user was deleted.
    public static let userDeleted = TerminationReason("userDeleted")
    /// The provider no longer accepts the session's credentials for this user (social.plus `400100`).
    public static let unauthorized = TerminationReason("unauthorized")

    public var description: String { rawValue }
}
