internal import Glibc
public import Logging
internal import Synchronization

/// Secrets in the Linux kernel keyring, through libkeyutils.
///
/// Each namespace is its own keyring, described `latchkey:<namespace>` and linked
/// directly into the user's persistent keyring where the kernel has one, and into the
/// user keyring otherwise. Each entry is a `user` key directly inside that keyring,
/// described `latchkey:<namespace>:<name>` with the value as its payload. The kernel's
/// `user` type cannot hold an empty payload, so an empty value is a `user` key
/// described `latchkey-empty:<namespace>:<name>` (payload one zero byte): still a
/// plain key, never a keyring, so no entry can be mistaken for a namespace.
///
/// Lookups are exact and never recursive: a key counts only if it is a *direct* child
/// of the keyring searched, with exactly the wanted type and description. (The kernel's
/// `keyctl_search` descends into nested keyrings, so each hit is checked against the
/// keyring's own list of links, and a nested hit falls back to walking that list.)
/// Namespaces and names are never split on `:` or parsed as paths; `a` with entry
/// `e:c` and namespace `a:e` with entry `c` are unrelated.
///
/// Keys and the namespace keyring grant every permission to the possessor and the
/// owning user, and nothing to group or other, so other users cannot see them.
///
/// What it survives: the exit of the process that wrote (any later process of the same
/// user reads the value); with a persistent keyring, logout too — the kernel expires
/// the persistent keyring after `/proc/sys/kernel/keys/persistent_keyring_expiry`
/// seconds (3 days by default) without use, and every write renews it. Without one, the
/// user keyring lives while the user has processes. What it does not survive: a reboot,
/// ever. Use ``LayeredSecretStore`` for durability.
///
/// Limits: a value is at most ``maxValueBytes`` (32,767) bytes, the `user` key type's
/// limit; the kernel also caps each user's total keys and bytes
/// (`/proc/sys/kernel/keys/maxkeys` and `maxbytes`, 200 keys and 20,000 bytes by
/// default for ordinary users), and a write beyond them fails with `.quotaExceeded`,
/// whose message shows the user's usage from `/proc/key-users`.
///
/// Errors: ENOKEY, EKEYEXPIRED and EKEYREVOKED mean "not found" (`nil`); EDQUOT is
/// `.quotaExceeded`; EPERM and ENOSYS (keyring calls blocked by a container's seccomp
/// profile) are `.unavailable`; EACCES is `.permissionDenied`.
///
/// ``withExclusiveLock(_:)`` is an in-process lock only.
///
/// Cost: a read is one `keyctl_search`, one `keyctl_read` of the namespace keyring's
/// links and one of the key (plus a few more calls to re-check the namespace keyring
/// after a miss); the namespace keyring's id is cached.
public final class KeyringSecretStore: SecretStore {
    /// The largest value the kernel's `user` key type holds.
    public static let maxValueBytes = 32_767

    /// The namespace of this store.
    public let namespace: String
    /// "kernel keyring".
    public let backendName = "kernel keyring"

    let system: KeyringSystem
    let logger: Logger
    /// `latchkey:<namespace>:` as UTF-8, the prefix of every value key's description.
    let keyPrefix: [UInt8]
    /// `latchkey-empty:<namespace>:` as UTF-8, the prefix of every empty value's key.
    let emptyPrefix: [UInt8]
    /// `latchkey-file-key:<namespace>`: where ``LayeredSecretStore`` keeps the key it
    /// derived from a passphrase for the namespace's file.
    let fileKeyDescription: String
    /// `latchkey-layered:<namespace>`: the generation record earlier versions of
    /// ``LayeredSecretStore`` kept beside their copies of the values.
    let oldLayerRecordDescription: String
    /// `latchkey:<namespace>`, the namespace keyring's description.
    let keyringDescription: String
    /// The namespace keyring's id once found (0 before), re-checked after every miss.
    let cachedKeyring = Mutex<Int32>(0)
    /// Whether the namespace keyring hangs off the persistent keyring (1), the user
    /// keyring (0), or is not known yet (-1).
    let persistentState = Mutex<Int8>(-1)

    /// A store for `namespace` in the kernel keyring.
    ///
    /// Creating the store makes no system call; the first operation finds or creates
    /// the namespace keyring.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public convenience init(namespace: String, logger: Logger = Logger(label: "latchkey.secrets", factory: { _ in SwiftLogNoOpLogHandler() })) throws
    {
        try self.init(namespace: namespace, system: .live, logger: logger)
    }

    /// A store over an injected ``KeyringSystem``, for tests.
    package init(
        namespace: String, system: KeyringSystem, logger: Logger = Logger(label: "latchkey.secrets", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        try SecretNames.validateNamespace(namespace, store: "kernel keyring store")
        self.namespace = namespace
        self.system = system
        self.logger = logger
        self.keyringDescription = "latchkey:" + namespace
        self.keyPrefix = Array(("latchkey:" + namespace + ":").utf8)
        self.emptyPrefix = Array(("latchkey-empty:" + namespace + ":").utf8)
        self.fileKeyDescription = "latchkey-file-key:" + namespace
        self.oldLayerRecordDescription = "latchkey-layered:" + namespace
    }

    /// How errors name this store.
    var storeLabel: String { "kernel keyring store \"\(namespace)\"" }

    /// Whether the namespace keyring is linked into the persistent keyring (`true`),
    /// the user keyring (`false`), or the store has not touched the keyring yet (`nil`).
    public var usesPersistentKeyring: Bool? {
        switch persistentState.withLock({ $0 }) {
        case 1: true
        case 0: false
        default: nil
        }
    }

    // MARK: SecretStore

    /// Returns the value of `name`, or `nil`.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try read(name)
    }

    /// Stores `value` under `name`; at most ``maxValueBytes`` bytes.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try write(name, value)
    }

    /// Invalidates the key `name`; returns whether there was one.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try removeSync(name)
    }

    /// The synchronous removal behind ``remove(_:)``.
    func removeSync(_ name: String) throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard let keyring = try namespaceKeyring(create: false) else { return false }
        var removed = false
        for prefix in [keyPrefix, emptyPrefix] {
            try withDescription(prefix, name) { description in
                if let id = try directChild(of: keyring, .user, description, entry: name) {
                    removed = try invalidate(id, entry: name) || removed
                }
            }
        }
        return removed
    }

    /// Invalidates every key of the namespace, then the namespace keyring itself.
    public nonisolated(nonsending) func removeAll() async throws {
        try removeAllSync()
    }

    /// The synchronous removal behind ``removeAll()``.
    func removeAllSync() throws {
        guard let keyring = try namespaceKeyring(create: false) else { return }
        for child in try children(of: keyring, entry: nil) {
            _ = try invalidate(child.id, entry: nil)
        }
        // Unlink first so the name is free at once, not after garbage collection.
        if let parent = try? parentKeyring() {
            _ = try? systemCall { system.unlink(keyring, parent) }
        }
        _ = try invalidate(keyring, entry: nil)
        cachedKeyring.withLock { $0 = 0 }
    }

    /// The kernel's description of the namespace keyring and of the key holding `name`
    /// (`type;uid;gid;perm;description`, perm in hex), for diagnostics and tests.
    package func kernelDescriptions(of name: String) throws -> (keyring: String?, key: String?) {
        guard let keyring = try namespaceKeyring(create: false) else { return (nil, nil) }
        var key: String?
        for prefix in [keyPrefix, emptyPrefix] where key == nil {
            key = try withDescription(prefix, name) { description in
                try directChild(of: keyring, .user, description, entry: name).flatMap { try describe($0) }
            }
        }
        return (try describe(keyring), key)
    }

    /// The names of the namespace's entries.
    public nonisolated(nonsending) func names() async throws -> [String] {
        guard let keyring = try namespaceKeyring(create: false) else { return [] }
        var names = Set<String>()
        for child in try children(of: keyring, entry: nil) where child.type == "user" {
            for prefix in [keyPrefix, emptyPrefix] where child.description.count > prefix.count && child.description.starts(with: prefix) {
                names.insert(String(decoding: child.description[prefix.count...], as: UTF8.self))
            }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Runs `body` holding an in-process lock for this namespace (the keyring has no
    /// cross-process lock).
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await NamespaceLock.withLock("keyring:" + namespace, acquireCrossProcess: { nil }, body)
    }

    // MARK: Reading

    /// The synchronous read behind ``get(_:)``: no actor hop, one small copy.
    func read(_ name: String) throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        var keyring = cachedKeyring.withLock { $0 }
        if keyring == 0 {
            guard let found = try namespaceKeyring(create: false) else { return nil }
            keyring = found
        }
        for attempt in 0..<2 {
            if let value = try withDescription(
                keyPrefix, name,
                { description -> [UInt8]? in
                    guard let id = try directChild(of: keyring, .user, description, entry: name) else { return nil }
                    return try readPayload(id, entry: name)
                })
            {
                return value
            }
            if try withDescription(emptyPrefix, name, { try directChild(of: keyring, .user, $0, entry: name) }) != nil {
                return []
            }
            // A miss may mean the cached keyring was replaced or expired: check once.
            guard attempt == 0, let fresh = try namespaceKeyring(create: false), fresh != keyring else { return nil }
            keyring = fresh
        }
        return nil
    }

    /// Reads key `id`'s payload; `nil` if the key vanished meanwhile.
    func readPayload(_ id: Int32, entry: String?) throws -> [UInt8]? {
        let stackCapacity = 4096
        let first: [UInt8]?? = try withUnsafeTemporaryAllocation(byteCount: stackCapacity, alignment: 16) { buffer in
            let size: Int
            do throws(Errno) {
                size = try systemCall { system.read(id, buffer.baseAddress, stackCapacity) }
            } catch {
                if KeyringErrno.classify(error.rawValue) == .notFound { return .some(nil) }
                throw failure(error, "read the key", entry: entry)
            }
            guard size <= stackCapacity else { return nil }
            return .some(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<size])))
        }
        if let first { return first }
        // Larger than the stack buffer: read into an exact-size array, again if it grew.
        do throws(Errno) {
            let capacity = try systemCall { system.read(id, nil, 0) }
            return try readGrowing(from: capacity) { buffer, capacity throws(Errno) in
                try systemCall { system.read(id, buffer, capacity) }
            }
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound { return nil }
            throw failure(error, "read the key", entry: entry)
        }
    }

    // MARK: Writing

    /// The synchronous write behind ``set(_:_:)``.
    func write(_ name: String, _ value: [UInt8]) throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard value.count <= Self.maxValueBytes else {
            throw SecretStoreError(
                .valueTooLarge, store: storeLabel, entry: name,
                reason: "the value is \(value.count) bytes; the kernel keyring's user keys hold at most \(Self.maxValueBytes) bytes")
        }
        try withDescription(keyPrefix, name) { valueDescription in
            try withDescription(emptyPrefix, name) { emptyDescription in
                var keyring = try createdNamespaceKeyring()
                for attempt in 0..<2 {
                    do {
                        try store(value, valueDescription: valueDescription, emptyDescription: emptyDescription, in: keyring, entry: name)
                        return
                    } catch let error as Errno where attempt == 0 && KeyringErrno.classify(error.rawValue) == .notFound {
                        // The namespace keyring went away between finding it and writing.
                        keyring = try createdNamespaceKeyring()
                    } catch let error as Errno {
                        throw failure(error, "add the key", entry: name)
                    }
                }
            }
        }
    }

    /// Adds (or updates) the key, then removes the other representation, so a reader
    /// sees the old value or the new one, never none.
    private func store(
        _ value: [UInt8], valueDescription: UnsafePointer<CChar>, emptyDescription: UnsafePointer<CChar>, in keyring: Int32, entry: String
    ) throws {
        // A `user` payload must be 1…32,767 bytes: an empty value is a one-byte marker
        // under its own description.
        let payload: [UInt8] = value.isEmpty ? [0] : value
        let description = value.isEmpty ? emptyDescription : valueDescription
        let id = try payload.withUnsafeBytes { bytes throws(Errno) in
            try systemCall { system.addKey(KeyType.user.cString, description, bytes.baseAddress, bytes.count, keyring) }
        }
        try systemCallVoid { system.setPermissions(id, KeyringSystem.permissions) }
        let other = value.isEmpty ? valueDescription : emptyDescription
        if let stale = try directChild(of: keyring, .user, other, entry: entry) {
            _ = try invalidate(stale, entry: entry)
        }
    }
}
