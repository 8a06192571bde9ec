internal import Glibc
internal import Logging

/// The kernel keyring in front of the encrypted file: durable across reboots, and as
/// fast as the keyring after the first read.
///
/// - Reads hit the keyring; on a miss they read the file and copy what they found into
///   the keyring, so the next read is a keyring read.
/// - Writes go to the file first, then to the keyring, both under the file's `flock`
///   so concurrent writers leave the two layers agreeing. If the
///   keyring write fails — its quota is full, say — the stale keyring entry is removed
///   so reads fall back to the file, and the failure is logged, not thrown: the file
///   is the record.
/// - Removal removes from the file, then invalidates the keyring entry.
///
/// Values are limited to the keyring's 32,767 bytes, so every value can live in both.
/// ``withExclusiveLock(_:)`` is the file's cross-process lock.
///
/// A value another process writes reaches this process's reads through the shared
/// keyring. A change made to the file alone (by an ``EncryptedFileSecretStore`` on the
/// same namespace, say) is not seen while the keyring holds an older copy.
public final class LayeredSecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "kernel keyring + encrypted file".
    public let backendName = "kernel keyring + encrypted file"
    /// The front layer.
    public let keyring: KeyringSecretStore
    /// The durable layer.
    public let file: EncryptedFileSecretStore

    private let logger: Logger

    /// A layered store for `namespace`, using `configuration` for the file layer.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public convenience init(namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()) throws {
        try self.init(keyring: KeyringSecretStore(namespace: namespace, system: configuration.keyringSystem, logger: configuration.logger),
                      file: EncryptedFileSecretStore(namespace: namespace, configuration: configuration))
    }

    /// A layered store over two existing stores of the same namespace.
    /// - Throws: `.invalidName` if their namespaces differ.
    public init(keyring: KeyringSecretStore, file: EncryptedFileSecretStore) throws {
        guard keyring.namespace == file.namespace else {
            throw SecretStoreError(.invalidName, store: "layered store",
                                   reason: "the keyring's namespace \"\(keyring.namespace)\" differs from the file's \"\(file.namespace)\"")
        }
        self.namespace = file.namespace
        self.keyring = keyring
        self.file = file
        self.logger = file.configuration.logger
    }

    private var storeLabel: String { "layered store \"\(namespace)\"" }

    /// The keyring's value, or the file's (copied into the keyring), or `nil`.
    ///
    /// A keyring failure on read is logged and answered from the file.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        do {
            if let value = try keyring.read(name) { return value }
        } catch let error as SecretStoreError where error.code != .invalidName {
            logger.warning("keyring read failed; reading the file",
                           metadata: ["namespace": "\(namespace)", "entry": "\(name)", "error": "\(error)"])
            return try await file.get(name)
        }
        // Copy under the file's lock, so a concurrent writer's newer value is never
        // overwritten in the keyring by this older one.
        return try await file.withExclusiveLock {
            guard let value = try await self.file.get(name) else { return nil }
            self.writeKeyring(name, value)
            return value
        }
    }

    /// Writes the file, then the keyring.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard value.count <= KeyringSecretStore.maxValueBytes else {
            throw SecretStoreError(.valueTooLarge, store: storeLabel, entry: name,
                                   reason: "the value is \(value.count) bytes; the layered store keeps every value in the kernel keyring too, whose user keys hold at most \(KeyringSecretStore.maxValueBytes) bytes")
        }
        try await file.withExclusiveLock {
            try await self.file.set(name, value)
            self.writeKeyring(name, value)
        }
    }

    /// Writes the keyring copy; on failure logs and removes any older copy so it cannot
    /// shadow the file.
    private func writeKeyring(_ name: String, _ value: [UInt8]) {
        do {
            try keyring.write(name, value)
        } catch {
            logger.warning("could not write a secret to the keyring; it is in the file, and reads fall back to it",
                           metadata: ["namespace": "\(namespace)", "entry": "\(name)", "error": "\(error)"])
            _ = try? keyring.removeSync(name)
        }
    }

    /// Removes `name` from the file, then from the keyring.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try await file.withExclusiveLock {
            let inFile = try await self.file.remove(name)
            let inKeyring = try await self.keyring.remove(name)
            return inFile || inKeyring
        }
    }

    /// Empties the file, then the keyring.
    public nonisolated(nonsending) func removeAll() async throws {
        guard access(file.configuration.dataDirectory, F_OK) == 0 else {
            // Never written through the file: nothing to lock or delete there.
            try await keyring.removeAll()
            return
        }
        try await file.withExclusiveLock {
            try await self.file.removeAll()
            try await self.keyring.removeAll()
        }
    }

    /// The file's entry names (the file is the record).
    public nonisolated(nonsending) func names() async throws -> [String] {
        try await file.names()
    }

    /// Runs `body` holding the file's cross-process lock.
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await file.withExclusiveLock(body)
    }
}
