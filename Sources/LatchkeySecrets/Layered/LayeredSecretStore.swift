internal import Glibc
internal import Logging

/// The kernel keyring in front of the encrypted file: durable across reboots, and as
/// fast as the keyring after the first read.
///
/// The file is the record; the keyring holds a cache of it. Every write of the file
/// draws a fresh random nonce, which serves as the file's *generation* (see
/// ``EncryptedFileSecretStore``). Next to its copies, the store keeps in the namespace
/// keyring the generation they were checked against (a `user` key described
/// `latchkey-layered:<namespace>`), and holds this invariant: when the recorded
/// generation is the file's current one, every copy in the keyring equals the file's
/// value.
///
/// - Reads: record first, then the copy, then the file's generation (a few bytes of
///   its header); the copy is served only if the two generations match — the fast
///   path, a few system calls and no decryption. Otherwise, under the file's `flock`,
///   the value is read from the file and copied into the keyring, after dropping every
///   copy if the generations differ, so a change made to the file alone — a delete or
///   wipe by an ``EncryptedFileSecretStore`` on the same namespace, say — is never
///   hidden by an older copy.
/// - Writes and removals: under the `flock`, the file first, then the keyring copy,
///   then the new generation is recorded (after dropping every copy, if the record did
///   not match the file before the write). The record is only ever set to a
///   generation the copies agree with; any keyring failure — its quota is full, say —
///   leaves it behind the file, so reads fall back to the file. Such failures are
///   logged, not thrown: the file is the record.
///
/// Values are limited to the keyring's 32,767 bytes, so every value can live in both.
/// ``withExclusiveLock(_:)`` is the file's cross-process lock. A value written to the
/// keyring alone (by a ``KeyringSecretStore`` on the same namespace) is served as long
/// as the file's generation is unchanged.
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
        try self.init(
            keyring: KeyringSecretStore(namespace: namespace, system: configuration.keyringSystem, logger: configuration.logger),
            file: EncryptedFileSecretStore(namespace: namespace, configuration: configuration))
    }

    /// A layered store over two existing stores of the same namespace.
    /// - Throws: `.invalidName` if their namespaces differ.
    public init(keyring: KeyringSecretStore, file: EncryptedFileSecretStore) throws {
        guard keyring.namespace == file.namespace else {
            throw SecretStoreError(
                .invalidName, store: "layered store",
                reason: "the keyring's namespace \"\(keyring.namespace)\" differs from the file's \"\(file.namespace)\"")
        }
        self.namespace = file.namespace
        self.keyring = keyring
        self.file = file
        self.logger = file.configuration.logger
    }

    private var storeLabel: String { "layered store \"\(namespace)\"" }

    /// The keyring's copy if it is current, else the file's value (then copied into
    /// the keyring), or `nil`.
    ///
    /// A keyring failure on read is logged and answered from the file.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        do {
            // The order matters: a copy read after a matching record belongs to it.
            if let recorded = try keyring.layerGeneration(), let value = try keyring.read(name),
                let current = try? file.generation(), current == recorded
            {
                return value
            }
        } catch {
            logger.warning(
                "keyring read failed; reading the file",
                metadata: ["namespace": "\(namespace)", "entry": "\(name)", "error": "\(error)"])
            return try await file.get(name)
        }
        // Copy under the file's lock, so a concurrent writer's newer value is never
        // overwritten in the keyring by this older one.
        return try await file.withExclusiveLock {
            let value = try await self.file.get(name)
            self.updateKeyring(name, value, copiesWereCurrent: nil)
            return value
        }
    }

    /// Writes the file, then the keyring.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard value.count <= KeyringSecretStore.maxValueBytes else {
            throw SecretStoreError(
                .valueTooLarge, store: storeLabel, entry: name,
                reason:
                    "the value is \(value.count) bytes; the layered store keeps every value in the kernel keyring too, whose user keys hold at most \(KeyringSecretStore.maxValueBytes) bytes"
            )
        }
        try await file.withExclusiveLock {
            let before = self.copiesAreCurrent()
            try await self.file.set(name, value)
            self.updateKeyring(name, value, copiesWereCurrent: before)
        }
    }

    /// Removes `name` from the file, then from the keyring.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try await file.withExclusiveLock {
            let before = self.copiesAreCurrent()
            let inFile = try await self.file.remove(name)
            let inKeyring = (try? self.keyring.removeSync(name)) ?? false
            self.updateKeyring(name, nil, copiesWereCurrent: before)
            return inFile || inKeyring
        }
    }

    /// Whether the recorded generation is the file's current one, so every keyring copy
    /// matches the file (call under the lock).
    private func copiesAreCurrent() -> Bool {
        guard let recorded = try? keyring.layerGeneration(), let current = try? file.generation() else { return false }
        return recorded == current
    }

    /// Brings the keyring in line with the file after the file was read or written
    /// under the lock: `value` is the file's value of `name` now. Drops every copy
    /// unless they matched the file (`copiesWereCurrent`, or checked here when `nil`),
    /// stores or removes the copy of `name`, then records the file's generation.
    /// Failures are logged; they leave the record behind the file, so reads use the file.
    private func updateKeyring(_ name: String, _ value: [UInt8]?, copiesWereCurrent: Bool?) {
        do {
            let current = try file.generation()
            if current == nil || !(copiesWereCurrent ?? copiesAreCurrent()) {
                try keyring.removeAllSync()
            }
            guard let current else { return }
            if let value {
                try keyring.write(name, value)
            } else {
                _ = try keyring.removeSync(name)
            }
            try keyring.setLayerGeneration(current)
        } catch {
            logger.warning(
                "could not update the keyring copy of a secret; it is in the file, and reads fall back to it",
                metadata: ["namespace": "\(namespace)", "entry": "\(name)", "error": "\(error)"])
            _ = try? keyring.removeLayerGeneration()
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
