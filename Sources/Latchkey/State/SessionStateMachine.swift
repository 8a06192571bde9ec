/// The legal moves between ``SessionState``s. Anything else is a bug in the caller: it
/// is refused and logged, never performed.
///
/// - start → `notLoggedIn` (nothing stored) | `established` (a stored session) |
///   `tokenExpired` (a stored session whose renewal failed for now) | `terminated` (the
///   provider ended the stored session at restore) | `needsUserAction` (its renewal
///   needs the user) | `restoring` (the store could not be read)
/// - `restoring` → `notLoggedIn` | `established` | `tokenExpired` | `terminated` |
///   `needsUserAction` (the store was read at last) | `establishing` (a login meanwhile)
/// - `notLoggedIn` → `establishing`
/// - `establishing` → `established` | `notLoggedIn` | `needsUserAction` (the login needs
///   another factor) | `tokenExpired` (a re-login from `tokenExpired` failed for now; the
///   stored session is kept)
/// - `established` → `tokenExpired` | `terminated` | `notLoggedIn` | `needsUserAction`
/// - `tokenExpired` → `established` | `terminated` | `notLoggedIn` | `establishing` | `needsUserAction`
/// - `needsUserAction` → `establishing` (the user acts) | `notLoggedIn` (logout, or the
///   action expired) | `established` (a renewal succeeded after all) | `terminated`
/// - `terminated` → `notLoggedIn`
public struct SessionStateMachine: Sendable {
    /// The current state; `nil` until the client has started.
    public private(set) var state: SessionState?

    /// A machine that has not started.
    public init() {}

    /// Whether moving from `from` (`nil`: not started) to `to` is legal.
    public static func isLegal(from: SessionState?, to: SessionState) -> Bool {
        switch (from, to) {
        case (nil, .notLoggedIn), (nil, .established), (nil, .tokenExpired), (nil, .terminated), (nil, .needsUserAction),
            (nil, .restoring):
            true
        case (.restoring?, .notLoggedIn), (.restoring?, .established), (.restoring?, .tokenExpired), (.restoring?, .terminated),
            (.restoring?, .needsUserAction), (.restoring?, .establishing):
            true
        case (.notLoggedIn?, .establishing): true
        case (.establishing?, .established), (.establishing?, .notLoggedIn), (.establishing?, .needsUserAction),
            (.establishing?, .tokenExpired):
            true
        case (.established?, .tokenExpired), (.established?, .terminated), (.established?, .notLoggedIn),
            (.established?, .needsUserAction):
            true
        case (.tokenExpired?, .established), (.tokenExpired?, .terminated), (.tokenExpired?, .notLoggedIn),
            (.tokenExpired?, .establishing), (.tokenExpired?, .needsUserAction):
            true
        case (.needsUserAction?, .establishing), (.needsUserAction?, .notLoggedIn), (.needsUserAction?, .established),
            (.needsUserAction?, .terminated):
            true
        case (.terminated?, .notLoggedIn): true
        default: false
        }
    }

    /// Moves to `next` if that is legal.
    ///
    /// - Returns: `false`, leaving the state unchanged, when the move is illegal.
    @discardableResult
    public mutating func transition(to next: SessionState) -> Bool {
        guard Self.isLegal(from: state, to: next) else { return false }
        state = next
        return true
    }
}
