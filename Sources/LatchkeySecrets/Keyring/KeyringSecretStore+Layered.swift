internal import Glibc

/// What ``LayeredSecretStore`` keeps in the namespace keyring: the key it derived from a
/// passphrase for the namespace's file, and nothing else. Earlier versions kept a copy
/// of every value and a generation record there; those are swept here.
extension KeyringSecretStore {
    /// The passphrase-derived key kept for the namespace's file, or `nil` if none.
    ///
    /// Unchecked: the caller compares its key check with the file header's.
    func fileKey() throws -> [UInt8]? {
        // The cached id saves finding the namespace keyring; a stale one only costs a miss.
        var keyring = cachedKeyring.withLock { $0 }
        if keyring == 0 {
            guard let found = try namespaceKeyring(create: false) else { return nil }
            keyring = found
        }
        if let key = try fileKey(in: keyring) { return key }
        // A miss may mean the cached keyring was replaced or expired: check once.
        guard let fresh = try namespaceKeyring(create: false), fresh != keyring else { return nil }
        return try fileKey(in: fresh)
    }

    private func fileKey(in keyring: Int32) throws -> [UInt8]? {
        try fileKeyDescription.withCString { description in
            try directChild(of: keyring, .user, description, entry: nil).flatMap { try readPayload($0, entry: nil) }
        }
    }

    /// Keeps `key` (1…32,767 bytes) as the namespace file's key, replacing any other.
    func setFileKey(_ key: [UInt8]) throws {
        let keyring = try createdNamespaceKeyring()
        var description = Array(fileKeyDescription.utf8CString)
        do {
            let id = try key.withUnsafeBytes { bytes throws(Errno) in
                try systemCall { system.addKey(KeyType.user.cString, &description, bytes.baseAddress, bytes.count, keyring) }
            }
            try systemCallVoid { system.setPermissions(id, KeyringSystem.permissions) }
        } catch let error as Errno {
            throw failure(error, "keep the file's key", entry: nil)
        }
    }

    /// Removes what an earlier ``LayeredSecretStore`` left: its generation record and,
    /// only where that record is found, its copies of the values (every entry key of the
    /// namespace). Returns whether there was such a record.
    ///
    /// Without the record nothing is touched, so a ``KeyringSecretStore`` sharing the
    /// namespace keeps its entries.
    func removeOldLayerCopies() throws -> Bool {
        guard let keyring = try namespaceKeyring(create: false) else { return false }
        let record = try oldLayerRecordDescription.withCString { try directChild(of: keyring, .user, $0, entry: nil) }
        guard let record else { return false }
        for child in try children(of: keyring, entry: nil) where child.type == KeyType.user.name {
            if child.description.starts(with: keyPrefix) || child.description.starts(with: emptyPrefix) {
                _ = try invalidate(child.id, entry: nil)
            }
        }
        _ = try invalidate(record, entry: nil)
        return true
    }
}
