internal import Synchronization

/// A first-come-first-served lock whose waiters suspend instead of blocking a thread.
///
/// Used to serialize a namespace's writers inside one process before they take the
/// cross-process `flock`, so no cooperative thread ever blocks on a lock another task
/// of this process holds across an `await`. Waiting is not cancellable.
package final class AsyncExclusiveLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Waits until the lock is free, then takes it.
    package func lock() async {
        let acquired = state.withLock { state -> Bool in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquiredNow = state.withLock { state -> Bool in
                guard state.locked else {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquiredNow { continuation.resume() }
        }
    }

    /// Releases the lock, handing it straight to the longest waiter if there is one.
    package func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
