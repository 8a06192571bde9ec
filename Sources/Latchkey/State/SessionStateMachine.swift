/// The legal moves between ``SessionState``s. Anything else is a bug in the caller: it
/// is refused and logged, never performed.
///
/// - start → `notLoggedIn` (nothing stored) | `established` (a stored session)
/// - `notLoggedIn` → `establishing`
/// - `establishing` → `established` | `notLoggedIn`
/// - `established` → `tokenExpired` | `terminated` | `notLoggedIn`
/// - `tokenExpired` → `established` | `terminated` | `notLoggedIn` | `establishing`
/// - `terminated` → `notLoggedIn`
public struct SessionStateMachine: Sendable {
    /// The current state; `nil` until the client has started.
    public private(set) var state: SessionState?

    /// A machine that has not started.
    public init() {}

    /// Whether moving from `from` (`nil`: not started) to `to` is legal.
    public static func isLegal(from: SessionState?, to: SessionState) -> Bool {
        switch (from, to) {
        case (nil, .notLoggedIn), (nil, .established): true
        case (.notLoggedIn?, .establishing): true
        case (.establishing?, .established), (.establishing?, .notLoggedIn): true
        case (.established?, .tokenExpired), (.established?, .terminated), (.established?, .notLoggedIn): true
        case (.tokenExpired?, .established), (.tokenExpired?, .terminated), (.tokenExpired?, .notLoggedIn),
             (.tokenExpired?, .establishing): true
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
