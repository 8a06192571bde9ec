internal import Glibc
package import LatchkeyCrypto
internal import Synchronization

/// The file store's keys: the key file's key, loaded once, and scrypt-derived keys,
/// derived once per salt and parameter set. Neither the key file nor scrypt is touched
/// again on later reads. With a ``DerivedKeyCache``, a derived key is also kept there,
/// and a key found there whose check matches the file's is used instead of scrypt.
package final class FileKeyMaterial: Sendable {
    /// A 256-bit key, its key check value, and the key prepared for decrypting.
    package struct Key: Sendable {
        package let bytes: [UInt8]
        package let check: [UInt8]
        /// Every read decrypts the whole file: the key schedule is expanded once, here.
        package let opening: AESGCMOpeningKey

        init(_ bytes: [UInt8]) throws {
            self.bytes = bytes
            self.check = try SecretFileFormat.keyCheck(for: bytes)
            self.opening = try AESGCMOpeningKey(bytes)
        }
    }

    /// What a writer puts in a new file's header.
    struct WritingKey {
        let key: Key
        let kdf: SecretFileFormat.KDF
        let scrypt: ScryptParameters?
        let salt: [UInt8]
    }

    private struct DerivationID: Hashable {
        let parameters: ScryptParameters
        let salt: [UInt8]
    }

    private let source: FileKeySource.Kind
    /// The key file, for a key-file source.
    let keyFilePath: String?
    private let scrypt: ScryptParameters
    private let fileKey = Mutex<Key?>(nil)
    private let derived = Mutex<[DerivationID: Key]>([:])
    private let derivedKeyCache: DerivedKeyCache?

    package init(configuration: SecretStoreConfiguration, derivedKeyCache: DerivedKeyCache? = nil) {
        self.source = configuration.keySource.kind
        self.keyFilePath = configuration.keyFilePath
        self.scrypt = configuration.scrypt
        self.derivedKeyCache = derivedKeyCache
    }

    /// The key file's key for a store that keeps no header of its own (the PostgreSQL
    /// store): loaded once and cached, the file created (0600) on first use. A
    /// passphrase has no home for its salt there, so it is refused.
    package func keyFileKey(store: String) throws -> Key {
        guard case .keyFile = source else {
            throw SecretStoreError(
                .wrongKey, store: store,
                reason: "this store needs a key file (FileKeySource.keyFile); a passphrase has nowhere to keep its salt here")
        }
        guard let key = try loadKeyFile(create: true, store: store) else {
            throw SecretStoreError(.ioFailure, store: store, reason: "the key file \(keyFilePath ?? "") could not be created")
        }
        return key
    }

    /// The key a file with this header was written under, as far as this store can
    /// tell; the caller still compares key checks.
    func keyForReading(_ parsed: SecretFileFormat.Parsed, store: String) throws -> Key {
        switch (source, parsed.kdf) {
        case (.keyFile, .keyFile):
            guard let key = try loadKeyFile(create: false, store: store) else {
                throw SecretStoreError(
                    .wrongKey, store: store,
                    reason:
                        "the key file \(keyFilePath ?? "") is missing, so the data cannot be decrypted; restore the key file from a backup, or reset the store to start afresh"
                )
            }
            return key
        case (.passphrase(let passphrase), .scrypt):
            return try derive(passphrase, parameters: parsed.scrypt, salt: Array(parsed.salt), check: parsed.keyCheck, store: store)
        case (.keyFile, .scrypt):
            throw SecretStoreError(
                .wrongKey, store: store,
                reason: "the file is protected by a passphrase, but the store is configured with a key file")
        case (.passphrase, .keyFile):
            throw SecretStoreError(
                .wrongKey, store: store,
                reason: "the file is encrypted with a key file, but the store is configured with a passphrase")
        }
    }

    /// The key for writing: the existing file's salt and parameters are kept, so a
    /// passphrase is derived once per process, not once per write.
    func keyForWriting(existing: SecretFileFormat.Parsed?, store: String) throws -> WritingKey {
        switch source {
        case .keyFile:
            guard let key = try loadKeyFile(create: true, store: store) else {
                throw SecretStoreError(.ioFailure, store: store, reason: "the key file \(keyFilePath ?? "") could not be created")
            }
            return WritingKey(key: key, kdf: .keyFile, scrypt: nil, salt: [])
        case .passphrase(let passphrase):
            let parameters = existing?.scrypt ?? scrypt
            let salt = try existing.map { Array($0.salt) } ?? SecureRandom.bytes(16)
            let key = try derive(passphrase, parameters: parameters, salt: salt, check: existing?.keyCheck, store: store)
            return WritingKey(key: key, kdf: .scrypt, scrypt: parameters, salt: salt)
        }
    }

    /// The key for `passphrase` under these parameters and salt: from memory, else from
    /// the cache when it matches the file's key `check`, else derived (and cached).
    private func derive(
        _ passphrase: [UInt8], parameters: ScryptParameters, salt: [UInt8], check: ArraySlice<UInt8>?, store: String
    ) throws -> Key {
        let id = DerivationID(parameters: parameters, salt: salt)
        if let key = derived.withLock({ $0[id] }) { return key }
        if let problem = parameters.boundsProblem {
            throw SecretStoreError(.corrupted, store: store, reason: "the scrypt parameters are out of bounds: \(problem)")
        }
        if let check, let cached = cachedKey(matching: check) {
            derived.withLock { $0[id] = cached }
            return cached
        }
        let bytes = try KeyDerivation.scrypt(
            password: passphrase, salt: salt, n: parameters.n, r: parameters.r, p: parameters.p,
            outputByteCount: AESGCM.keyByteCount,
            limits: .init(maxMemoryBytes: ScryptParameters.maxMemoryBytes))
        let key = try Key(bytes)
        derived.withLock { $0[id] = key }
        // Only the file's own key is kept: a wrong passphrase must not displace it.
        if let derivedKeyCache, check.map({ Self.key(key, matches: $0) }) ?? true {
            derivedKeyCache.save(bytes)
        }
        return key
    }

    /// The cache's key if its check is the file's `check`.
    private func cachedKey(matching check: ArraySlice<UInt8>) -> Key? {
        guard let bytes = derivedKeyCache?.load(), bytes.count == AESGCM.keyByteCount, let key = try? Key(bytes) else { return nil }
        return Self.key(key, matches: check) ? key : nil
    }

    private static func key(_ key: Key, matches check: ArraySlice<UInt8>) -> Bool {
        key.check.withUnsafeBytes { mine in check.withUnsafeBytes { theirs in constantTimeEquals(mine, theirs) } }
    }

    /// The key file's key, cached after the first load; creates the file if asked.
    private func loadKeyFile(create: Bool, store: String) throws -> Key? {
        if let key = fileKey.withLock({ $0 }) { return key }
        guard let path = keyFilePath else { return nil }
        for _ in 0..<2 {
            let fd: Int32?
            do throws(Errno) {
                fd = try POSIXFile.openIfExists(path, flags: O_RDONLY | O_NOFOLLOW)
            } catch {
                throw SecretStoreError(
                    error.rawValue == EACCES ? .permissionDenied : .ioFailure, store: store,
                    reason: "cannot open the key file \(path): \(error)", errno: error.rawValue, underlying: error)
            }
            guard let fd else {
                guard create else { return nil }
                try createKeyFile(path, store: store)
                continue
            }
            defer { POSIXFile.close(fd) }
            let info = try SecureDirectory.check(fd, path: path, kind: .file, store: store)
            guard info.st_size == AESGCM.keyByteCount else {
                throw SecretStoreError(
                    .corrupted, store: store,
                    reason: "the key file \(path) is \(info.st_size) bytes, not \(AESGCM.keyByteCount); it is damaged or not a Latchkey key file")
            }
            let bytes: [UInt8]
            do throws(Errno) {
                bytes = try POSIXFile.readAll(fd, sizeHint: AESGCM.keyByteCount)
            } catch {
                throw SecretStoreError(
                    .ioFailure, store: store, reason: "cannot read the key file \(path): \(error)", errno: error.rawValue, underlying: error)
            }
            guard bytes.count == AESGCM.keyByteCount else {
                throw SecretStoreError(.corrupted, store: store, reason: "the key file \(path) changed size while being read")
            }
            let key = try Key(bytes)
            fileKey.withLock { $0 = key }
            return key
        }
        return nil
    }

    /// Writes a new random key to a temporary file and links it into place, so a key
    /// file is never half-written and never replaces one another process just created.
    private func createKeyFile(_ path: String, store: String) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fileName = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let directoryFD = try SecureDirectory.open(directory, store: store)
        defer { POSIXFile.close(directoryFD) }
        let temporary = POSIXFile.join(directory, ".\(fileName).tmp-\(getpid())-\(try SecureRandom.bytes(4).map { String($0, radix: 16) }.joined())")
        do throws(Errno) {
            let fd = try systemCall { open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600) }
            defer { POSIXFile.close(fd) }
            try systemCallVoid { fchmod(fd, 0o600) }
            let key = (try? SecureRandom.bytes(AESGCM.keyByteCount)) ?? []
            guard key.count == AESGCM.keyByteCount else { throw Errno(EIO) }
            try POSIXFile.writeAll(fd, key)
            try POSIXFile.sync(fd)
        } catch {
            _ = unlink(temporary)
            throw SecretStoreError(
                .ioFailure, store: store, reason: "cannot write a new key file next to \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        defer { _ = unlink(temporary) }
        do throws(Errno) {
            try systemCallVoid { link(temporary, path) }
        } catch  where error.rawValue == EEXIST {
            // Another process created the key first; the caller reads theirs.
        } catch {
            throw SecretStoreError(
                .ioFailure, store: store, reason: "cannot create the key file \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        _ = try? POSIXFile.sync(directoryFD)
    }
}
