internal import Synchronization

/// The process-wide locks of one namespace of one backend, shared by every store
/// instance that names the same lock key (for files, the lock file's path).
final class NamespaceLock: Sendable {
    /// Serializes `withExclusiveLock` callers of this process; suspends, never blocks.
    let exclusive = AsyncExclusiveLock()
    /// Guards the short synchronous read-modify-write of a store's data, so child tasks
    /// started inside one `withExclusiveLock` body cannot interleave their updates.
    let critical = Mutex(())

    private static let registry = Mutex<[String: NamespaceLock]>([:])

    /// The keys of the locks the current task (and the tasks it awaits) holds.
    @TaskLocal static var held: Set<String> = []

    /// A lock of its own, not in the registry (for stores that share nothing).
    init() {}

    /// The lock for `key`, created on first use and kept for the life of the process.
    static func named(_ key: String) -> NamespaceLock {
        registry.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = NamespaceLock()
            locks[key] = lock
            return lock
        }
    }

    /// Runs `body` holding the lock `key`: the in-process lock, then whatever
    /// `acquireCrossProcess` returns (an `flock`, released by its `release` closure).
    /// Re-entrant: if this task already holds `key`, `body` just runs.
    static func withLock<R: Sendable>(
        _ key: String,
        acquireCrossProcess: () async throws -> (@Sendable () -> Void)?,
        _ body: @Sendable () async throws -> R
    ) async throws -> R {
        try await named(key).run(key, acquireCrossProcess: acquireCrossProcess, body)
    }

    /// ``withLock(_:acquireCrossProcess:_:)`` on this lock, which `key` identifies in
    /// the task-local set of held locks.
    func run<R: Sendable>(
        _ key: String,
        acquireCrossProcess: () async throws -> (@Sendable () -> Void)?,
        _ body: @Sendable () async throws -> R
    ) async throws -> R {
        let held = Self.held
        if held.contains(key) { return try await body() }
        await exclusive.lock()
        defer { exclusive.unlock() }
        let release = try await acquireCrossProcess()
        defer { release?() }
        var keys = held
        keys.insert(key)
        return try await Self.$held.withValue(keys) { try await body() }
    }
}
