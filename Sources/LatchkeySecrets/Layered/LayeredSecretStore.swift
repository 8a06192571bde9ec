internal import Glibc
internal import Logging
internal import Synchronization

/// The encrypted file, with the kernel keyring holding what must not touch the disk:
/// durable across reboots, as fast as the file, and — with a passphrase — scrypt paid
/// once per boot or login, not once per process.
///
/// The file is the record, and every read and write goes to it: a read is an
/// ``EncryptedFileSecretStore`` read, so a change made to the file alone (by an
/// ``EncryptedFileSecretStore`` or another process on the same namespace) is seen at
/// once, and no copy can hide it. Values are limited only as the file's are.
///
/// The keyring holds one thing, and only for a passphrase-protected file: the key
/// scrypt derived for it, as a `user` key described `latchkey-file-key:<namespace>`
/// in the namespace keyring (possessor and owning user only, like every key of
/// ``KeyringSecretStore``). It never touches the disk and is gone after a reboot; while
/// it is there, a new process reads the file without running scrypt. A key found there
/// is used only if its key check matches the file's header, so a stale one costs one
/// derivation, never a wrong read. Whoever can read the user's keyring can read it, as
/// they could read the values this store kept there before; and while it is there, a
/// layered store of the namespace opens the file whatever passphrase it was given. With
/// a key file nothing goes into the keyring: the key is on disk already, and reading its
/// 32 bytes costs what a keyring lookup does.
///
/// A keyring failure — its quota is full, or its calls are blocked — never fails a
/// read or a write: it is logged, and scrypt runs as for the file alone.
///
/// Earlier versions kept a copy of every value in the keyring beside a generation
/// record (`latchkey-layered:<namespace>`). Such copies are never read; the first
/// operation of each store removes them, with the record, where the record is found.
/// ``removeAll()`` removes the file and the namespace keyring with everything in it.
/// ``withExclusiveLock(_:)`` is the file's cross-process lock.
public final class LayeredSecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "kernel keyring + encrypted file".
    public let backendName = "kernel keyring + encrypted file"
    /// The keyring layer: holds the passphrase-derived key of the file.
    public let keyring: KeyringSecretStore
    /// The record: a store over the namespace's file whose passphrase-derived keys are
    /// kept in ``keyring``.
    public let file: EncryptedFileSecretStore

    private let logger: Logger
    /// Whether this store has looked for an earlier version's copies in the keyring.
    private let swept = Atomic<Bool>(false)

    /// A layered store for `namespace`, using `configuration` for the file layer.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public convenience init(namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()) throws {
        try self.init(
            keyring: KeyringSecretStore(namespace: namespace, system: configuration.keyringSystem, logger: configuration.logger),
            configuration: configuration)
    }

    /// A layered store over the keyring and the file of the same namespace; the file
    /// layer is a new store with `file`'s configuration.
    /// - Throws: `.invalidName` if their namespaces differ.
    public convenience init(keyring: KeyringSecretStore, file: EncryptedFileSecretStore) throws {
        guard keyring.namespace == file.namespace else {
            throw SecretStoreError(
                .invalidName, store: "layered store",
                reason: "the keyring's namespace \"\(keyring.namespace)\" differs from the file's \"\(file.namespace)\"")
        }
        try self.init(keyring: keyring, configuration: file.configuration)
    }

    private init(keyring: KeyringSecretStore, configuration: SecretStoreConfiguration) throws {
        let logger = configuration.logger
        let namespace = keyring.namespace
        self.namespace = namespace
        self.keyring = keyring
        self.logger = logger
        self.file = try EncryptedFileSecretStore(
            namespace: namespace, configuration: configuration,
            derivedKeyCache: DerivedKeyCache(
                load: {
                    do {
                        return try keyring.fileKey()
                    } catch {
                        logger.warning(
                            "could not read the file's key from the keyring; deriving it",
                            metadata: ["namespace": "\(namespace)", "error": "\(error)"])
                        return nil
                    }
                },
                save: { key in
                    do {
                        try keyring.setFileKey(key)
                    } catch {
                        logger.warning(
                            "could not keep the file's key in the keyring; the next process derives it again",
                            metadata: ["namespace": "\(namespace)", "error": "\(error)"])
                    }
                }))
    }

    private var storeLabel: String { "layered store \"\(namespace)\"" }

    /// The file's value of `name`, or `nil`.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        sweepOnce()
        return try await file.get(name)
    }

    /// Writes `value` to the file.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        sweepOnce()
        try await file.set(name, value)
    }

    /// Removes `name` from the file.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        sweepOnce()
        return try await file.remove(name)
    }

    /// Empties the file, then removes the namespace keyring (the file's key, and
    /// anything else in it). A keyring failure is logged: the file is the record.
    public nonisolated(nonsending) func removeAll() async throws {
        if access(file.configuration.dataDirectory, F_OK) == 0 {
            try await file.withExclusiveLock {
                try await self.file.removeAll()
                self.removeKeyring()
            }
        } else {
            // Never written through the file: nothing to lock or delete there.
            removeKeyring()
        }
    }

    private func removeKeyring() {
        do {
            try keyring.removeAllSync()
        } catch {
            logger.warning("could not empty the namespace keyring", metadata: ["namespace": "\(namespace)", "error": "\(error)"])
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

    /// Once per store: removes the value copies an earlier version kept in the
    /// keyring, which this one never reads. Failures are logged.
    private func sweepOnce() {
        guard !swept.load(ordering: .relaxed), !swept.exchange(true, ordering: .relaxed) else { return }
        do {
            if try keyring.removeOldLayerCopies() {
                logger.info("removed the copies an earlier version kept in the keyring", metadata: ["namespace": "\(namespace)"])
            }
        } catch {
            logger.warning(
                "could not look for an earlier version's copies in the keyring", metadata: ["namespace": "\(namespace)", "error": "\(error)"])
        }
    }
}
