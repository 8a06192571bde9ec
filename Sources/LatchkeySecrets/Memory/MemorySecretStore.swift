internal import Synchronization

/// Secrets in this process's memory only: for tests and ephemeral apps.
///
/// Nothing survives the store's deallocation; two instances never share entries.
/// ``withExclusiveLock(_:)`` is an in-process lock. Values of any size are accepted.
public final class MemorySecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "memory".
    public let backendName = "memory"

    private let entries = Mutex<[[UInt8]: [UInt8]]>([:])
    private let lock = NamespaceLock()

    /// An empty store for `namespace`.
    /// - Throws: `.invalidName` if the namespace is not usable (the same rules as the
    ///   other backends, so code tested against memory works against them).
    public init(namespace: String) throws {
        try SecretNames.validateNamespace(namespace, store: "memory store")
        self.namespace = namespace
    }

    private var storeLabel: String { "memory store \"\(namespace)\"" }

    /// Returns the value of `name`, or `nil`.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let key = Array(name.utf8)
        return entries.withLock { $0[key] }
    }

    /// Stores `value` under `name`.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let key = Array(name.utf8)
        entries.withLock { $0[key] = value }
    }

    /// Removes `name`; returns whether it was there.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let key = Array(name.utf8)
        return entries.withLock { $0.removeValue(forKey: key) != nil }
    }

    /// Removes every entry.
    public nonisolated(nonsending) func removeAll() async throws {
        entries.withLock { $0.removeAll() }
    }

    /// The names of all entries.
    public nonisolated(nonsending) func names() async throws -> [String] {
        entries.withLock { $0.keys.sorted { $0.lexicographicallyPrecedes($1) } }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs `body` holding this store's in-process lock.
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await lock.run("memory:\(ObjectIdentifier(self))", acquireCrossProcess: { nil }, body)
    }
}
