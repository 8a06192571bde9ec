public import Foundation

/// What the client knows of one object (the session, the user, …): the object and when
/// the provider last confirmed it, or why there is none.
public enum ObjectInfo<Object: Sendable & Hashable>: Sendable, Hashable {
    /// The object, as the provider last reported it, and when the session was last
    /// validated. After a restore whose validation failed for a network reason the
    /// time is the stored one: the object is published but not yet revalidated.
    case available(Object, lastValidatedAt: Date)
    /// There is no such object.
    case unavailable(UnavailableReason)

    /// The object, if available.
    public var value: Object? {
        if case .available(let object, _) = self { object } else { nil }
    }

    /// When the object was last validated, if available.
    public var lastValidatedAt: Date? {
        if case .available(_, let date) = self { date } else { nil }
    }
}

/// Why an object is unavailable.
public enum UnavailableReason: Sendable, Hashable, CustomStringConvertible {
    /// Nobody is signed in.
    case notLoggedIn
    /// The provider has no such object for this session (a consumer session has no
    /// organization; social.plus has no session object).
    case notProvided
    /// The session was terminated by the provider.
    case terminated(TerminationReason)

    public var description: String {
        switch self {
        case .notLoggedIn: "not logged in"
        case .notProvided: "not provided by this provider"
        case .terminated(let reason): "session terminated (\(reason))"
        }
    }
}
