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
        state.withLock { state in state.frozenAt ?? Date().addingTimeInterval(state.offset) }
    }

    /// Moves the clock forward by `seconds` (negative values are refused: time does not go back).
    public func advance(by seconds: TimeInterval) {
        guard seconds > 0, seconds.isFinite else { return }
        state.withLock { state in
            if let frozen = state.frozenAt { state.frozenAt = frozen.addingTimeInterval(seconds) } else { state.offset += seconds }
        }
    }

    /// Pins the clock at `date`: it stays there until advanced or set again.
    public func set(_ date: Date) {
        state.withLock { $0.frozenAt = date }
    }
}
