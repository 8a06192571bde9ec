internal import Glibc

/// Exact, non-recursive key lookup and the small keyctl wrappers behind it.
extension KeyringSecretStore {
    /// The two key types the store uses, as C strings.
    enum KeyType {
        case user, keyring

        /// The type's name from a NUL-terminated static string: no allocation per call.
        var cString: UnsafePointer<CChar> {
            let name: StaticString =
                switch self {
                case .user: "user"
                case .keyring: "keyring"
                }
            return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }

        /// The type's name as `keyctl_describe` reports it.
        var name: String {
            switch self {
            case .user: "user"
            case .keyring: "keyring"
            }
        }
    }

    /// One key linked directly into a keyring, with its type and description.
    struct Child {
        var id: Int32
        var type: Substring
        var description: [UInt8]
    }

    /// The key of `type` described exactly `description` that is linked *directly*
    /// into `keyring`, or `nil`.
    ///
    /// `keyctl_search` looks in nested keyrings too, so its hit is accepted only if it
    /// is one of `keyring`'s own links; otherwise those links are walked and described
    /// one by one. The kernel searches a keyring's own keys before descending, so the
    /// walk only runs when no direct child matches the search, or when a key nests.
    func directChild(of keyring: Int32, _ type: KeyType, _ description: UnsafePointer<CChar>, entry: String?) throws -> Int32? {
        guard let hit = try search(keyring, type, description, entry: entry) else { return nil }
        let links = try linkedIDs(of: keyring, entry: entry)
        if links.contains(hit) { return hit }
        let wanted = UnsafeRawBufferPointer(start: description, count: strlen(description))
        for id in links {
            guard let child = try child(id), child.type == type.name,
                child.description.elementsEqual(wanted)
            else { continue }
            return id
        }
        return nil
    }

    /// The keys linked directly into `keyring`, described; keys that vanish or that
    /// this user may not describe are skipped.
    func children(of keyring: Int32, entry: String?) throws -> [Child] {
        try linkedIDs(of: keyring, entry: entry).compactMap { try child($0) }
    }

    /// Describes key `id` as a ``Child``, or `nil` if it vanished or is not ours to see.
    private func child(_ id: Int32) throws -> Child? {
        guard let text = try describe(id) else { return nil }
        // "type;uid;gid;perm;description": the description is last and may hold ';'.
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5 else { return nil }
        return Child(id: id, type: fields[0], description: Array(fields[4].utf8))
    }

    /// The ids linked directly into `keyring` (`keyctl_read` of a keyring).
    private func linkedIDs(of keyring: Int32, entry: String?) throws -> [Int32] {
        var capacity = 64
        while true {
            var readError: Errno?
            var size = 0
            let ids = [Int32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
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
                throw failure(readError, "list the keyring", entry: entry)
            }
            if size <= capacity * 4 { return ids }
            capacity = size / 4 + 16
        }
    }

    /// `keyctl_describe`, or `nil` if the key vanished.
    func describe(_ id: Int32) throws -> String? {
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
    func readGrowing(
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

    /// `keyctl_search` (recursive: callers go through ``directChild(of:_:_:entry:)``):
    /// the key's id, or `nil` when it is not there.
    private func search(_ keyring: Int32, _ type: KeyType, _ description: UnsafePointer<CChar>, entry: String?) throws -> Int32? {
        do throws(Errno) {
            return Int32(truncatingIfNeeded: try systemCall { system.search(keyring, type.cString, description, 0) })
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound { return nil }
            throw failure(error, "search the keyring", entry: entry)
        }
    }

    /// `keyctl_invalidate`: whether the key was still there.
    func invalidate(_ id: Int32, entry: String?) throws -> Bool {
        do throws(Errno) {
            try systemCallVoid { system.invalidate(id) }
            return true
        } catch {
            if KeyringErrno.classify(error.rawValue) == .notFound { return false }
            throw failure(error, "invalidate the key", entry: entry)
        }
    }

    /// Lends `prefix` followed by `name` as a C string without a heap allocation.
    func withDescription<R>(_ prefix: [UInt8], _ name: String, _ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
        var name = name
        return try name.withUTF8 { nameBytes in
            let count = prefix.count + nameBytes.count + 1
            return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: count) { buffer in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                prefix.withUnsafeBytes { raw.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                if nameBytes.count > 0 {
                    (raw.baseAddress! + prefix.count).copyMemory(from: nameBytes.baseAddress!, byteCount: nameBytes.count)
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
            return SecretStoreError(
                .quotaExceeded, store: storeLabel, entry: entry,
                reason:
                    "could not \(operation): the kernel keyring quota is used up: \(usage); remove unused keys (keyctl show @u) or raise /proc/sys/kernel/keys/maxkeys and maxbytes",
                errno: code, underlying: error)
        case .unavailable:
            return SecretStoreError(
                .unavailable, store: storeLabel, entry: entry,
                reason:
                    "could not \(operation): \(error); the keyring system calls are blocked here (as by the seccomp profile of a default Docker or Podman container); use the encrypted file store",
                errno: code, underlying: error)
        case .permissionDenied:
            return SecretStoreError(
                .permissionDenied, store: storeLabel, entry: entry,
                reason: "could not \(operation): \(error); the key or keyring belongs to another user or does not grant this user access",
                errno: code, underlying: error)
        case .notFound, .failure:
            return SecretStoreError(
                .ioFailure, store: storeLabel, entry: entry,
                reason: "could not \(operation): \(error)", errno: code, underlying: error)
        }
    }
}
