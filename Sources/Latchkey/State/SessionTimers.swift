/// The client's timers and retry loops, each a task sleeping on the client's clock: the
/// heartbeat, the proactive renewal, the expiry (`established → tokenExpired`), the
/// pending login step's expiry, and the retries of a failed store read or removal.
///
/// A value the client holds one of. Replacing a timer cancels the one it replaces, so two
/// of a kind never run at once.
struct SessionTimers: Sendable {
    private(set) var heartbeat: Task<Void, Never>?
    private(set) var renewal: Task<Void, Never>?
    private(set) var expiry: Task<Void, Never>?
    private(set) var action: Task<Void, Never>?
    /// Retries removing an ended session the store refused to remove.
    private(set) var removalRetry: Task<Void, Never>?
    /// Retries reading a store that refused the read at start.
    private(set) var restoreRetry: Task<Void, Never>?
    /// Retries saving renewed tokens the store refused, without waiting for a call.
    private(set) var saveRetry: Task<Void, Never>?

    /// Stops the session's own timers (heartbeat, renewal, expiry, login step); the store
    /// retries outlive the session they began in.
    mutating func stopSessionTimers() {
        replace(&heartbeat, with: nil)
        replace(&renewal, with: nil)
        replace(&expiry, with: nil)
        replace(&action, with: nil)
    }

    mutating func setHeartbeat(_ task: Task<Void, Never>?) { replace(&heartbeat, with: task) }
    mutating func setRenewal(_ task: Task<Void, Never>?) { replace(&renewal, with: task) }
    mutating func setExpiry(_ task: Task<Void, Never>?) { replace(&expiry, with: task) }
    mutating func setAction(_ task: Task<Void, Never>?) { replace(&action, with: task) }
    mutating func setRemovalRetry(_ task: Task<Void, Never>?) { replace(&removalRetry, with: task) }
    mutating func setRestoreRetry(_ task: Task<Void, Never>?) { replace(&restoreRetry, with: task) }
    mutating func setSaveRetry(_ task: Task<Void, Never>?) { replace(&saveRetry, with: task) }

    /// The removal retry loop ended on its own: forgotten, not cancelled (it is the caller).
    mutating func removalRetryEnded() { removalRetry = nil }
    /// The restore retry loop ended on its own: forgotten, not cancelled (it is the caller).
    mutating func restoreRetryEnded() { restoreRetry = nil }
    /// The save retry loop ended on its own: forgotten, not cancelled (it is the caller).
    mutating func saveRetryEnded() { saveRetry = nil }

    private func replace(_ slot: inout Task<Void, Never>?, with task: Task<Void, Never>?) {
        slot?.cancel()
        slot = task
    }
}
