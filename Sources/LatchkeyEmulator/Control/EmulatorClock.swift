public import Foundation
import Synchronization

/// The emulator's time: what it stamps on tokens and sessions and checks expiry against.
///
/// By default it follows the system clock; ``advance(by:)`` moves it forward (so tests
/// reach an expiry without waiting) and ``set(_:)`` pins it. Thread-safe.
public final class EmulatorClock: Sendable {
    private struct State {
        var offset: TimeInterval
        var frozenAt: Date?
    }

    private let state: Mutex<State>

    /// A clock following the system time, or frozen at `start` when one is given.
    public init(start: Date? = nil) {
        state = Mutex(State(offset: 0, frozenAt: start))
    }

    /// The emulator's current time.
    public var now: Date {
        // A running clock advanced to the end stays there: it never passes ``latest``.
        state.withLock { state in state.frozenAt ?? min(Date().addingTimeInterval(state.offset), Self.latest) }
    }

    /// The latest time the clock shows, 9999-12-31T23:59:59Z: the last instant every
    /// timestamp format the providers use can write.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// Moves the clock forward by `seconds` (negative values are refused: time does not
    /// go back), stopping at ``latest``.
    public func advance(by seconds: TimeInterval) {
        guard seconds > 0, seconds.isFinite else { return }
        state.withLock { state in
            if let frozen = state.frozenAt {
                state.frozenAt = min(frozen.addingTimeInterval(seconds), Self.latest)
            } else {
                state.offset = min(state.offset + seconds, Self.latest.timeIntervalSinceNow)
            }
        }
    }

    /// Pins the clock at `date` (at most ``latest``): it stays there until advanced or
    /// set again.
    public func set(_ date: Date) {
        state.withLock { $0.frozenAt = min(date, Self.latest) }
    }
}
