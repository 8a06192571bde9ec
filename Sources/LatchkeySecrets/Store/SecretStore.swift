/// A store of named secrets (byte strings) inside one namespace, usually the app's
/// service name.
///
/// Every backend — ``KeyringSecretStore``, ``EncryptedFileSecretStore``,
/// ``LayeredSecretStore`` and ``MemorySecretStore`` — implements this protocol, and
/// ``SecretStoreSelection`` picks the right one for the machine.
///
/// A missing entry is `nil`, never an error. Failures are ``SecretStoreError`` values
/// whose descriptions name the store and the entry, never the value. All methods are
/// safe to call from any task concurrently. The accessors are `nonisolated(nonsending)`:
/// they run on the caller's executor, so an actor reading a secret pays no executor hop
/// (a keyring read is a few microseconds; the work is synchronous system calls).
public protocol SecretStore: Sendable {
    /// The namespace this store's entries live in, usually the app's service name.
    var namespace: String { get }

    /// A short human-readable name of the backend, e.g. "kernel keyring".
    var backendName: String { get }

    /// Returns the value stored under `name`, or `nil` when there is none.
    ///
    /// - Throws: ``SecretStoreError`` when the backend fails (unavailable, corrupted,
    ///   wrong key, permission denied, …). A missing entry is not an error.
    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]?

    /// Stores `value` under `name`, replacing any previous value.
    ///
    /// - Throws: ``SecretStoreError``, for example `.valueTooLarge` or `.quotaExceeded`.
    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws

    /// Removes the entry `name`.
    ///
    /// - Returns: whether an entry was there to remove.
    @discardableResult
    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool

    /// Removes every entry of the namespace.
    nonisolated(nonsending) func removeAll() async throws

    /// The names of all entries in the namespace, sorted by their UTF-8 bytes.
    nonisolated(nonsending) func names() async throws -> [String]

    /// Runs `body` while holding this namespace's exclusive lock.
    ///
    /// For stores backed by a file (``EncryptedFileSecretStore``,
    /// ``LayeredSecretStore``) the lock is an `flock` on the namespace's lock file, so
    /// it excludes other processes as well as other tasks of this process; for
    /// ``KeyringSecretStore`` and ``MemorySecretStore`` it is an in-process lock only.
    /// Calls on the same store from inside `body` (and from tasks it awaits) do not
    /// take the lock again, so a read-modify-write sequence is simply
    /// `try await store.withExclusiveLock { … get … set … }`.
    ///
    /// Waiting for the lock is not cancellable; keep `body` short.
    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R
}

extension SecretStore {
    /// Returns the value stored under `name` decoded as UTF-8, or `nil` when there is none.
    ///
    /// Invalid UTF-8 is repaired with replacement characters; use ``SecretStore/get(_:)``
    /// for the exact bytes.
    public nonisolated(nonsending) func string(_ name: String) async throws -> String? {
        guard let bytes = try await get(name) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Stores the UTF-8 bytes of `value` under `name`.
    public nonisolated(nonsending) func set(_ name: String, _ value: String) async throws {
        try await set(name, Array(value.utf8))
    }

    /// Whether an entry named `name` exists.
    public nonisolated(nonsending) func contains(_ name: String) async throws -> Bool {
        try await get(name) != nil
    }
}
