internal import Glibc
public import Logging
internal import Synchronization

/// Secrets in the Linux kernel keyring, through libkeyutils.
///
/// Each entry is a `user` key described `latchkey:<namespace>:<name>`, kept in a
/// keyring described `latchkey:<namespace>`. That keyring is linked into the user's
/// persistent keyring where the kernel has one, and into the user keyring otherwise.
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
/// whose message shows the user's usage from `/proc/key-users`. The kernel's `user`
/// type cannot hold an empty payload, so an empty value is kept as an empty keyring
/// with the entry's description.
///
/// Errors: ENOKEY, EKEYEXPIRED and EKEYREVOKED mean "not found" (`nil`); EDQUOT is
/// `.quotaExceeded`; EPERM and ENOSYS (keyring calls blocked by a container's seccomp
/// profile) are `.unavailable`; EACCES is `.permissionDenied`.
///
/// ``withExclusiveLock(_:)`` is an in-process lock only.
///
/// Cost: a read is one `keyctl_search` and one `keyctl_read` (plus two more calls to
/// re-check the namespace keyring after a miss); the namespace keyring's id is cached.
public final class KeyringSecretStore: SecretStore {
    /// The largest value the kernel's `user` key type holds.
    public static let maxValueBytes = 32_767

    /// The namespace of this store.
    public let namespace: String
    /// "kernel keyring".
    public let backendName = "kernel keyring"

    let system: KeyringSystem
    let logger: Logger
    /// `latchkey:<namespace>:` as UTF-8, the prefix of every key description.
    private let keyPrefix: [UInt8]
    /// `latchkey:<namespace>`, the namespace keyring's description.
    private let keyringDescription: String
    /// The namespace keyring's id once found (0 before), re-checked after every miss.
    private let cachedKeyring = Mutex<Int32>(0)
    /// Whether the namespace keyring hangs off the persistent keyring (1), the user
    /// keyring (0), or is not known yet (-1).
    private let persistentState = Mutex<Int8>(-1)

    /// A store for `namespace` in the kernel keyring.
    ///
    /// Creating the store makes no system call; the first operation finds or creates
    /// the namespace keyring.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public convenience init(namespace: String, logger: Logger = Logger(label: "latchkey.secrets", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        try self.init(namespace: namespace, system: .live, logger: logger)
    }

    /// A store over an injected ``KeyringSystem``, for tests.
    package init(namespace: String, system: KeyringSystem, logger: Logger = Logger(label: "latchkey.secrets", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        try SecretNames.validateNamespace(namespace, store: "kernel keyring store")
        self.namespace = namespace
        self.system = system
        self.logger = logger
        self.keyringDescription = "latchkey:" + namespace
        self.keyPrefix = Array(("latchkey:" + namespace + ":").utf8)
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
        return try withDescription(name) { description in
            var removed = false
            for type in [KeyType.user, KeyType.keyring] {
                if let id = try search(keyring, type, description, entry: name) {
                    removed = try invalidate(id, entry: name) || removed
                }
            }
            return removed
        }
    }

    /// Invalidates every key of the namespace, then the namespace keyring itself.
    public nonisolated(nonsending) func removeAll() async throws {
        guard let keyring = try namespaceKeyring(create: false) else { return }
        for (id, _) in try entries(of: keyring) {
            _ = try invalidate(id, entry: nil)
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
        let key = try withDescription(name) { description -> String? in
            for type in [KeyType.user, KeyType.keyring] {
                if let id = try search(keyring, type, description, entry: name) { return try describe(id) }
            }
            return nil
        }
        return (try describe(keyring), key)
    }

    /// The names of the namespace's entries.
    public nonisolated(nonsending) func names() async throws -> [String] {
        guard let keyring = try namespaceKeyring(create: false) else { return [] }
        let names = Set(try entries(of: keyring).map(\.name))
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
        return try withDescription(name) { description in
            for attempt in 0..<2 {
                if let id = try search(keyring, .user, description, entry: name),
                   let value = try readPayload(id, entry: name) {
                    return value
                }
                if try search(keyring, .keyring, description, entry: name) != nil {
                    return []
                }
                // A miss may mean the cached keyring was replaced or expired: check once.
                guard attempt == 0, let fresh = try namespaceKeyring(create: false), fresh != keyring else { return nil }
                keyring = fresh
            }
            return nil
        }
    }

    /// Reads key `id`'s payload; `nil` if the key vanished meanwhile.
    private func readPayload(_ id: Int32, entry: String) throws -> [UInt8]? {
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
            throw SecretStoreError(.valueTooLarge, store: storeLabel, entry: name,
                                   reason: "the value is \(value.count) bytes; the kernel keyring's user keys hold at most \(Self.maxValueBytes) bytes")
        }
        try withDescription(name) { description in
            var keyring = try createdNamespaceKeyring()
            for attempt in 0..<2 {
                do {
                    try store(value, description: description, in: keyring, entry: name)
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

    /// Adds (or updates) the key, then removes the other representation, so a reader
    /// sees the old value or the new one, never none.
    private func store(_ value: [UInt8], description: UnsafePointer<CChar>, in keyring: Int32, entry: String) throws {
        let id: Int32
        if value.isEmpty {
            id = try systemCall { system.addKey(KeyType.keyring.cString, description, nil, 0, keyring) }
        } else {
            id = try value.withUnsafeBytes { payload throws(Errno) in
                try systemCall { system.addKey(KeyType.user.cString, description, payload.baseAddress, payload.count, keyring) }
            }
        }
        try systemCallVoid { system.setPermissions(id, KeyringSystem.permissions) }
        let other: KeyType = value.isEmpty ? .user : .keyring
        if let stale = try search(keyring, other, description, entry: entry) {
            _ = try invalidate(stale, entry: entry)
        }
    }

    // MARK: The namespace keyring

    /// The keyring new namespace keyrings are linked into: the persistent keyring when
    /// the kernel has one (asking for it renews its expiry), else the user keyring.
    private func parentKeyring() throws -> Int32 {
        do throws(Errno) {
            let id = try systemCall { system.getPersistent(KeyringSystem.processKeyring) }
            persistentState.withLock { $0 = 1 }
            return Int32(truncatingIfNeeded: id)
        } catch where error.rawValue == EOPNOTSUPP {
            do throws(Errno) {
                let id = try systemCall { system.userKeyring() }
                persistentState.withLock { $0 = 0 }
                return Int32(truncatingIfNeeded: id)
            } catch {
                throw failure(error, "find the user keyring", entry: nil)
            }
        } catch {
            throw failure(error, "find the persistent keyring", entry: nil)
        }
    }

    /// Finds the namespace keyring, creating it if asked; caches its id.
    ///
    /// Creation stages the keyring in the process keyring, then moves it with
    /// `KEYCTL_MOVE_EXCL`, so two processes racing to create it cannot displace each
    /// other's: the loser drops its own and uses the winner's.
    func namespaceKeyring(create: Bool) throws -> Int32? {
        let parent = try parentKeyring()
        if let found = try keyringDescription.withCString({ try search(parent, .keyring, $0, entry: nil) }) {
            cachedKeyring.withLock { $0 = found }
            return found
        }
        guard create else {
            cachedKeyring.withLock { $0 = 0 }
            return nil
        }
        var description = Array(keyringDescription.utf8CString)
        let staged: Int32
        do throws(Errno) {
            staged = try systemCall { system.addKey(KeyType.keyring.cString, &description, nil, 0, KeyringSystem.processKeyring) }
            try systemCallVoid { system.setPermissions(staged, KeyringSystem.permissions) }
        } catch {
            throw failure(error, "create the namespace keyring", entry: nil)
        }
        do throws(Errno) {
            try systemCallVoid { system.moveExclusive(staged, KeyringSystem.processKeyring, parent) }
        } catch where error.rawValue == EEXIST {
            // Another process won the race, or an invalidated keyring awaits garbage
            // collection: use the winner's, or displace the dead one.
            if let winner = try namespaceKeyring(create: false) {
                _ = try? systemCall { system.invalidate(staged) }
                return winner
            }
            do throws(Errno) {
                try systemCallVoid { system.link(staged, parent) }
                _ = try? systemCall { system.unlink(staged, KeyringSystem.processKeyring) }
            } catch {
                _ = try? systemCall { system.invalidate(staged) }
                throw failure(error, "link the namespace keyring", entry: nil)
            }
        } catch where error.rawValue == EOPNOTSUPP || error.rawValue == EINVAL {
            // Kernels before 5.1 have no KEYCTL_MOVE: link, accepting a tiny race.
            do throws(Errno) {
                try systemCallVoid { system.link(staged, parent) }
                _ = try? systemCall { system.unlink(staged, KeyringSystem.processKeyring) }
            } catch {
                throw failure(error, "link the namespace keyring", entry: nil)
            }
        } catch {
            _ = try? systemCall { system.invalidate(staged) }
            throw failure(error, "link the namespace keyring", entry: nil)
        }
        logger.debug("created keyring \(keyringDescription)")
        cachedKeyring.withLock { $0 = staged }
        return staged
    }

    /// ``namespaceKeyring(create:)`` with `create: true`, which always returns an id.
    private func createdNamespaceKeyring() throws -> Int32 {
        guard let keyring = try namespaceKeyring(create: true) else {
            throw SecretStoreError(.ioFailure, store: storeLabel, reason: "the namespace keyring \(keyringDescription) could not be created")
        }
        return keyring
    }

    /// The keys in `keyring` that belong to this namespace, with their entry names.
    private func entries(of keyring: Int32) throws -> [(id: Int32, name: String)] {
        var ids: [Int32] = []
        var capacity = 64
        while true {
            var readError: Errno?
            var size = 0
            ids = [Int32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                do throws(Errno) {
                    size = try systemCall { system.read(keyring, buffer.baseAddress, capacity * 4) }
                    initialized = min(size, capacity * 4) / 4
                } catch {
                    readError = error
                    initialized = 0
                }
            }
            if let readError {
                if KeyringErrno.classify(readError.rawValue) == .notFound { return [] }
                throw failure(readError, "list the namespace keyring", entry: nil)
            }
            if size <= capacity * 4 { break }
            capacity = size / 4 + 16
        }
        var result: [(Int32, String)] = []
        for id in ids {
            guard let text = try describe(id) else { continue }
            // "type;uid;gid;perm;description": the description is last and may hold ';'.
            let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, fields[0] == "user" || fields[0] == "keyring" else { continue }
            let description = Array(fields[4].utf8)
            guard description.count > keyPrefix.count, description.starts(with: keyPrefix) else { continue }
            result.append((id, String(decoding: description[keyPrefix.count...], as: UTF8.self)))
        }
        return result
    }

    /// `keyctl_describe`, or `nil` if the key vanished.
    private func describe(_ id: Int32) throws -> String? {
        do throws(Errno) {
            let bytes = try readGrowing(from: 256) { buffer, capacity throws(Errno) in
                try systemCall { system.describe(id, buffer?.assumingMemoryBound(to: CChar.self), capacity) }
            }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound || error.rawValue == EACCES { return nil }
            throw failure(error, "describe a key", entry: nil)
        }
    }

    /// Runs a keyctl call that copies at most `capacity` bytes and returns the full
    /// size, growing the buffer until the result fits (a key can grow between calls).
    private func readGrowing(
        from initialCapacity: Int,
        _ call: (UnsafeMutableRawPointer?, Int) throws(Errno) -> Int
    ) throws(Errno) -> [UInt8] {
        var capacity = initialCapacity
        while true {
            var callError: Errno?
            var size = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                do throws(Errno) {
                    size = try call(UnsafeMutableRawPointer(buffer.baseAddress), capacity)
                    initialized = min(size, capacity)
                } catch {
                    callError = error
                    initialized = 0
                }
            }
            if let callError { throw callError }
            if size <= capacity { return bytes }
            capacity = size
        }
    }

    // MARK: Helpers

    /// The two key types the store uses, as C strings.
    enum KeyType {
        case user, keyring

        /// The type's name from a NUL-terminated static string: no allocation per call.
        var cString: UnsafePointer<CChar> {
            let name: StaticString = switch self {
            case .user: "user"
            case .keyring: "keyring"
            }
            return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }
    }

    /// `keyctl_search`: the key's id, or `nil` when it is not there.
    private func search(_ keyring: Int32, _ type: KeyType, _ description: UnsafePointer<CChar>, entry: String?) throws -> Int32? {
        do throws(Errno) {
            return Int32(truncatingIfNeeded: try systemCall { system.search(keyring, type.cString, description, 0) })
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound { return nil }
            throw failure(error, "search the keyring", entry: entry)
        }
    }

    /// `keyctl_invalidate`: whether the key was still there.
    private func invalidate(_ id: Int32, entry: String?) throws -> Bool {
        do throws(Errno) {
            try systemCallVoid { system.invalidate(id) }
            return true
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound { return false }
            throw failure(error, "invalidate the key", entry: entry)
        }
    }

    /// Lends `latchkey:<namespace>:<name>` as a C string without a heap allocation.
    private func withDescription<R>(_ name: String, _ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
        var name = name
        return try name.withUTF8 { nameBytes in
            let count = keyPrefix.count + nameBytes.count + 1
            return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: count) { buffer in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                keyPrefix.withUnsafeBytes { raw.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                if nameBytes.count > 0 {
                    (raw.baseAddress! + keyPrefix.count).copyMemory(from: nameBytes.baseAddress!, byteCount: nameBytes.count)
                }
                raw[count - 1] = 0
                return try body(UnsafePointer(buffer.baseAddress!))
            }
        }
    }

    /// Turns a failed call's errno into the store's error.
    func failure(_ error: Errno, _ operation: String, entry: String?) -> SecretStoreError {
        let code = error.rawValue
        switch KeyringErrno.classify(code) {
        case .quotaExceeded:
            let usage = KeyringQuota.current().map { "\($0) (from /proc/key-users)" } ?? "/proc/key-users is unreadable"
            return SecretStoreError(.quotaExceeded, store: storeLabel, entry: entry,
                                    reason: "could not \(operation): the kernel keyring quota is used up: \(usage); remove unused keys (keyctl show @u) or raise /proc/sys/kernel/keys/maxkeys and maxbytes",
                                    errno: code, underlying: error)
        case .unavailable:
            return SecretStoreError(.unavailable, store: storeLabel, entry: entry,
                                    reason: "could not \(operation): \(error); the keyring system calls are blocked here (as by the seccomp profile of a default Docker or Podman container); use the encrypted file store",
                                    errno: code, underlying: error)
        case .permissionDenied:
            return SecretStoreError(.permissionDenied, store: storeLabel, entry: entry,
                                    reason: "could not \(operation): \(error); the key or keyring belongs to another user or does not grant this user access",
                                    errno: code, underlying: error)
        case .notFound, .failure:
            return SecretStoreError(.ioFailure, store: storeLabel, entry: entry,
                                    reason: "could not \(operation): \(error)", errno: code, underlying: error)
        }
    }
}
