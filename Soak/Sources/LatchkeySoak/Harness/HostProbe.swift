internal import Synchronization

/// One process's tally: counters, violations, and the work in flight (network requests
/// and store operations) that tells the host when its clients have gone quiet.
final class HostProbe: Sendable {
    private struct State {
        var counters = HostCounters()
        var violations: [HostViolation] = []
        var inFlight = 0
        /// Bumped at every start and end of a request or store operation: a poll that
        /// sees the same value twice saw no activity in between.
        var activity: UInt64 = 0
        /// Users' actions started and not finished (running, or parked on the clock).
        var actions = 0
    }

    private let state = Mutex(State())

    func update(_ change: (inout HostCounters) -> Void) {
        state.withLock { change(&$0.counters) }
    }

    func violation(_ kind: HostViolation.Kind, user: String, _ detail: String) {
        state.withLock { $0.violations.append(HostViolation(kind: kind, user: user, detail: detail)) }
    }

    func begin() {
        state.withLock {
            $0.inFlight += 1
            $0.activity &+= 1
        }
    }
    func end() {
        state.withLock {
            $0.inFlight -= 1
            $0.activity &+= 1
        }
    }

    func actionStarted() { state.withLock { $0.actions += 1 } }
    func actionEnded() { state.withLock { $0.actions -= 1 } }
    var actionsRunning: Int { state.withLock { $0.actions } }

    /// Work in flight and the activity counter.
    var activity: (inFlight: Int, stamp: UInt64) { state.withLock { ($0.inFlight, $0.activity) } }

    /// The counters and violations since the last drain.
    func drain() -> (HostCounters, [HostViolation]) {
        state.withLock { state in
            defer {
                state.counters = HostCounters()
                state.violations = []
            }
            return (state.counters, state.violations)
        }
    }
}
