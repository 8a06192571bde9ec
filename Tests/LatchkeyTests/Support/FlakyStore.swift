import LatchkeySecrets
import Synchronization

/// A memory store that fails on command: the next `failReads` reads and the next
/// `failWrites` writes throw, as a refusing keyring or a full disk would.
final class FlakyStore: SecretStore {
    let base: MemorySecretStore
    let failReads = Atomic<Int>(0)
    let failWrites = Atomic<Int>(0)
    let failRemoves = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    /// The next `slowUnlocks` holders of the lock return this late after releasing it:
    /// another waiter runs its locked section first, as a busy executor may let it.
    let slowUnlocks = Atomic<Int>(0)

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the store refused (EACCES)" }
    }

    init() throws { base = try MemorySecretStore(namespace: "flaky") }

    var namespace: String { base.namespace }
    var backendName: String { "flaky" }

    private static func take(_ counter: borrowing Atomic<Int>) -> Bool {
        while true {
            let value = counter.load(ordering: .relaxed)
            guard value > 0 else { return false }
            if counter.compareExchange(expected: value, desired: value - 1, ordering: .relaxed).exchanged { return true }
        }
    }

    /// Every read waits for this first, while it is set.
    let readGate = Mutex<(@Sendable () async -> Void)?>(nil)

    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        if let gate = readGate.withLock({ $0 }) { await gate() }
        if Self.take(failReads) { throw Refused() }
        return try await base.get(name)
    }

    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        if Self.take(failWrites) { throw Refused() }
        writes.add(1, ordering: .relaxed)
        try await base.set(name, value)
    }

    /// Every removal waits for this first, while it is set.
    let removeGate = Mutex<(@Sendable () async -> Void)?>(nil)

    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        if let gate = removeGate.withLock({ $0 }) { await gate() }
        if Self.take(failRemoves) { throw Refused() }
        return try await base.remove(name)
    }
    nonisolated(nonsending) func removeAll() async throws { try await base.removeAll() }
    nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }

    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        let result = try await base.withExclusiveLock(body)
        if Self.take(slowUnlocks) { try? await Task.sleep(for: .milliseconds(100)) }
        return result
    }
}
