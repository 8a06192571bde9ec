public import LatchkeySecrets

/// A view of another store that sees only the entries whose names start with `scope`:
/// an adapter's own namespace inside the app's configured store (the core's
/// ``ProviderContext/store``). Names are prefixed on the way in and stripped on the way
/// out; ``removeAll()`` removes only this scope's entries; the lock is the base store's.
public struct ScopedSecretStore: SecretStore {
    /// The store underneath.
    public let base: any SecretStore
    /// The prefix of every entry name in this view (`provider.socialplus.`).
    public let scope: String

    /// A view of `base` limited to names starting with `scope`.
    public init(base: any SecretStore, scope: String) {
        self.base = base
        self.scope = scope
    }

    public var namespace: String { base.namespace }
    public var backendName: String { base.backendName }

    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try await base.get(scope + name)
    }

    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try await base.set(scope + name, value)
    }

    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try await base.remove(scope + name)
    }

    public nonisolated(nonsending) func removeAll() async throws {
        for name in try await names() { _ = try await base.remove(scope + name) }
    }

    public nonisolated(nonsending) func names() async throws -> [String] {
        // Byte-wise prefix: names are compared by their UTF-8, never by canonical equivalence.
        let prefix = scope.utf8
        return try await base.names().filter { $0.utf8.starts(with: prefix) }
            .map { String(decoding: $0.utf8.dropFirst(prefix.count), as: UTF8.self) }
    }

    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await base.withExclusiveLock(body)
    }
}
