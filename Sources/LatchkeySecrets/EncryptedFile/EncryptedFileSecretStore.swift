internal import Glibc
internal import LatchkeyCrypto
internal import Logging
internal import Synchronization

/// Secrets in one AES-256-GCM encrypted file per namespace, under
/// `$XDG_DATA_HOME/latchkey/` (`~/.local/share/latchkey/`) by default.
///
/// The file `<namespace>.secrets` holds every entry of the namespace as one
/// authenticated record (format: a versioned header with the KDF and its parameters,
/// the namespace and the entry names, all bound as associated data; then the
/// ciphertext of the values and the tag). Every write draws a fresh random nonce. The
/// key is either a random 256-bit key in its own 0600 file under
/// `$XDG_CONFIG_HOME/latchkey/`, or derived from a passphrase with scrypt; see
/// ``FileKeySource``. Keys are loaded or derived once and cached in memory.
///
/// Safety:
/// - The directory is 0700 and files 0600, set explicitly; a file or directory that
///   group or other can access, or that another user owns, is refused with a
///   `.permissionDenied` error saying how to fix it.
/// - Writes are atomic: a temporary file in the same directory (created with
///   `O_EXCL`), written, `fsync`ed, renamed over the old file, then the directory is
///   `fsync`ed. A crash leaves the old file or the new one, never a mix; stale
///   temporary files are removed by the next writer.
/// - Writers hold an `flock` on `<namespace>.secrets.lock`, so concurrent
///   read-modify-write updates from any number of processes are never lost. Readers
///   take no lock and always see a complete file.
/// - A file that fails to parse or authenticate is `.corrupted` (`.wrongKey` if its
///   header is intact but was written under another key or passphrase) and is never
///   overwritten or deleted: writes fail too, until ``reset()`` moves it aside as
///   `<namespace>.secrets.corrupt-<timestamp>`.
///
/// Cost: every read opens, reads and closes the file and decrypts it, so changes by
/// other processes are seen at once; nothing else (no key file read, no KDF, no AES
/// key expansion) is repeated. Values are limited only by the file format (4 GiB each) and a 64 MiB cap
/// on the file.
public final class EncryptedFileSecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "encrypted file".
    public let backendName = "encrypted file"
    /// The configuration the store was created with.
    public let configuration: SecretStoreConfiguration
    /// The data file, `<data directory>/<namespace>.secrets`.
    public let path: String
    /// The lock file writers `flock`, `<path>.lock`.
    public let lockPath: String

    private let namespaceBytes: [UInt8]
    private let keys: FileKeyMaterial
    private let fileName: String
    private let directoryChecked = Mutex(false)

    /// A store for `namespace` with `configuration`'s directories and key source.
    ///
    /// Creating the store touches no file; the first write creates the directory, the
    /// key file (for a key-file source) and the data file.
    /// - Throws: `.invalidName` if the namespace is not usable as a file name.
    public convenience init(namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()) throws {
        try self.init(namespace: namespace, configuration: configuration, derivedKeyCache: nil)
    }

    /// A store whose passphrase-derived keys are also kept in `derivedKeyCache` (the
    /// layered store's keyring), so another process can skip scrypt.
    package init(namespace: String, configuration: SecretStoreConfiguration, derivedKeyCache: DerivedKeyCache?) throws {
        try SecretNames.validateNamespace(namespace, store: "encrypted file store")
        self.namespace = namespace
        self.configuration = configuration
        self.namespaceBytes = Array(namespace.utf8)
        self.fileName = namespace + ".secrets"
        self.path = configuration.dataFilePath(namespace: namespace)
        self.lockPath = path + ".lock"
        self.storeLabel = "encrypted file store \"\(namespace)\" (\(path))"
        self.keys = FileKeyMaterial(configuration: configuration, derivedKeyCache: derivedKeyCache)
    }

    /// How errors name this store. Built once: every read passes it to the permission
    /// checks, and interpolating it per call was a seventh of a read's instructions.
    let storeLabel: String

    var logger: Logger { configuration.logger }

    // MARK: SecretStore

    /// Returns the value of `name`, or `nil`; reads and decrypts the file on each call.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard let (bytes, parsed, plaintext) = try load() else { return nil }
        var name = name
        return name.withUTF8 { wanted in
            for entry in parsed.entries where bytes[entry.name].elementsEqual(wanted) {
                // A file of one entry (a session vault) hands over its plaintext as is.
                return entry.value.count == plaintext.count ? plaintext : Array(plaintext[entry.value])
            }
            return nil
        }
    }

    /// Stores `value` under `name`, atomically replacing the file under the lock.
    ///
    /// - Throws: `.valueTooLarge` if the file would outgrow ``maxFileBytes``, the most
    ///   a read accepts (the file is left as it was).
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard value.count <= Self.maxFileBytes else { throw tooLarge(name, value.count, fileBytes: nil) }
        let key = Array(name.utf8)
        try await update { entries in entries[key] = value }
    }

    /// The largest file the store reads back (64 MiB): writes that would make the file
    /// larger are refused, so one value cannot make the whole namespace unreadable.
    public static var maxFileBytes: Int { POSIXFile.maxReadBytes }

    private func tooLarge(_ name: String, _ valueBytes: Int, fileBytes: Int?) -> SecretStoreError {
        let file = fileBytes.map { "the namespace's file would be \($0) bytes" } ?? "the value alone is \(valueBytes) bytes"
        return SecretStoreError(
            .valueTooLarge, store: storeLabel, entry: name,
            reason: "\(file), over the \(Self.maxFileBytes)-byte (64 MiB) limit on a secret file; the value was not stored")
    }

    /// Removes `name`; returns whether it was there.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        guard directoryExists else { return false }
        let key = Array(name.utf8)
        return try await update { entries in entries.removeValue(forKey: key) != nil }
    }

    /// Removes every entry by deleting the data file (its lock file stays).
    public nonisolated(nonsending) func removeAll() async throws {
        guard directoryExists else { return }
        try await update { entries in entries.removeAll() }
    }

    /// Removing from a store that was never written must not create its directory.
    private var directoryExists: Bool { access(configuration.dataDirectory, F_OK) == 0 }

    /// The names of all entries; reads and decrypts the file.
    public nonisolated(nonsending) func names() async throws -> [String] {
        guard let (bytes, parsed, _) = try load() else { return [] }
        return parsed.entries.map { String(decoding: bytes[$0.name], as: UTF8.self) }
    }

    /// Runs `body` holding the namespace's `flock` (and an in-process lock), so no
    /// other process or task writes meanwhile. Creates the directory and lock file if
    /// needed.
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await NamespaceLock.withLock(lockPath, acquireCrossProcess: { try await self.acquireFileLock() }, body)
    }

    /// Moves the data file aside as `<path>.corrupt-<timestamp>` so the store starts
    /// empty; the only way a corrupted (or undecryptable) file is ever replaced.
    ///
    /// - Returns: the path the file was moved to, or `nil` if there was no file.
    @discardableResult
    public func reset() async throws -> String? {
        try await withExclusiveLock {
            let directoryFD = try SecureDirectory.open(self.configuration.dataDirectory, store: self.storeLabel)
            defer { POSIXFile.close(directoryFD) }
            guard access(self.path, F_OK) == 0 else { return nil }
            var target = self.path + ".corrupt-" + POSIXFile.timestamp()
            var suffix = 1
            while access(target, F_OK) == 0 {
                suffix += 1
                target = self.path + ".corrupt-" + POSIXFile.timestamp() + "-\(suffix)"
            }
            do throws(Errno) {
                try systemCallVoid { rename(self.path, target) }
                try POSIXFile.sync(directoryFD)
            } catch {
                throw self.ioError("move the file aside to \(target)", error)
            }
            self.logger.warning("moved secret file aside", metadata: ["from": "\(self.path)", "to": "\(target)"])
            return target
        }
    }

    // MARK: Reading

    /// Reads, checks, parses and decrypts the file; `nil` if there is none.
    private func load() throws -> (bytes: [UInt8], parsed: SecretFileFormat.Parsed, plaintext: [UInt8])? {
        try checkDirectoryOnce()
        let fd: Int32?
        do throws(Errno) {
            fd = try POSIXFile.openIfExists(path, flags: O_RDONLY | O_NOFOLLOW)
        } catch {
            throw ioError("open the file", error)
        }
        guard let fd else { return nil }
        let bytes: [UInt8]
        do {
            defer { POSIXFile.close(fd) }
            let info = try SecureDirectory.check(fd, path: path, kind: .file, store: storeLabel)
            do throws(Errno) {
                bytes = try POSIXFile.readAll(fd, sizeHint: Int(info.st_size))
            } catch {
                throw ioError("read the file", error)
            }
        }
        let parsed = try parse(bytes)
        return (bytes, parsed, try decrypt(bytes, parsed))
    }

    private func parse(_ bytes: [UInt8]) throws -> SecretFileFormat.Parsed {
        let parsed: SecretFileFormat.Parsed
        do throws(SecretFileFormat.Problem) {
            parsed = try SecretFileFormat.parse(bytes)
        } catch {
            switch error {
            case .corrupted(let reason):
                throw corrupted(reason)
            case .unsupportedVersion(let version):
                let relation = version < SecretFileFormat.currentVersion ? "older than" : "newer than"
                throw SecretStoreError(
                    .unsupportedVersion, store: storeLabel,
                    reason:
                        "the file has format version \(version), \(relation) the version this library reads (\(SecretFileFormat.currentVersion)); it is refused and left untouched"
                )
            }
        }
        guard parsed.namespace.elementsEqual(namespaceBytes) else {
            throw corrupted(
                "the file belongs to namespace \"\(String(decoding: parsed.namespace, as: UTF8.self))\", not this one; it was copied or renamed")
        }
        return parsed
    }

    private func decrypt(_ bytes: [UInt8], _ parsed: SecretFileFormat.Parsed) throws -> [UInt8] {
        let key = try keys.keyForReading(parsed, store: storeLabel)
        let intact = { SecretFileFormat.headerIsIntact(bytes, headerLength: parsed.headerLength) }
        guard
            key.check.withUnsafeBytes({ mine in
                parsed.keyCheck.withUnsafeBytes { theirs in constantTimeEquals(mine, theirs) }
            })
        else {
            guard intact() else { throw corrupted("the header is damaged (its checksum does not match)") }
            let what = parsed.kdf == .scrypt ? "a different passphrase" : "a different key than the key file \(keys.keyFilePath ?? "")"
            throw SecretStoreError(.wrongKey, store: storeLabel, reason: "the file was encrypted with \(what)")
        }
        do throws(CryptoError) {
            return try SecretFileFormat.decrypt(bytes, parsed, key: key.opening)
        } catch {
            throw corrupted("the file fails authentication (altered, truncated or spliced)", underlying: error)
        }
    }

    private func checkDirectoryOnce() throws {
        guard !directoryChecked.withLock({ $0 }) else { return }
        if try SecureDirectory.checkIfExists(configuration.dataDirectory, store: storeLabel) {
            directoryChecked.withLock { $0 = true }
        }
    }

    // MARK: Writing

    /// The read-modify-write behind every mutation: under the lock, load the current
    /// file (refusing to touch a corrupted one), apply `change`, write atomically.
    private func update<R: Sendable>(_ change: @escaping @Sendable (inout [[UInt8]: [UInt8]]) -> R) async throws -> R {
        try await withExclusiveLock {
            try NamespaceLock.named(self.lockPath).critical.withLock { _ in
                try self.updateLocked(change)
            }
        }
    }

    private func updateLocked<R>(_ change: (inout [[UInt8]: [UInt8]]) -> R) throws -> R {
        let directoryFD = try SecureDirectory.open(configuration.dataDirectory, store: storeLabel)
        defer { POSIXFile.close(directoryFD) }
        removeStaleTemporaryFiles()
        let current = try load()
        var entries: [[UInt8]: [UInt8]] = [:]
        if let (bytes, parsed, plaintext) = current {
            for entry in parsed.entries {
                entries[Array(bytes[entry.name])] = Array(plaintext[entry.value])
            }
        }
        let before = entries
        let result = change(&entries)
        guard entries != before || (current == nil && !entries.isEmpty) else { return result }
        if entries.isEmpty {
            do throws(Errno) {
                try systemCallVoid { unlink(path) }
                try POSIXFile.sync(directoryFD)
            } catch  where error.rawValue == ENOENT {
            } catch {
                throw ioError("delete the file", error)
            }
            return result
        }
        let writing = try keys.keyForWriting(existing: current?.parsed, store: storeLabel)
        let sorted = entries.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { (name: $0.key, value: $0.value) }
        let encodedSize = SecretFileFormat.encodedSize(namespace: namespaceBytes, entries: sorted, saltCount: writing.salt.count)
        guard encodedSize <= Self.maxFileBytes else {
            let grown = sorted.first { before[$0.name] != $0.value }
            throw tooLarge(grown.map { String(decoding: $0.name, as: UTF8.self) } ?? "", grown?.value.count ?? 0, fileBytes: encodedSize)
        }
        let bytes = try SecretFileFormat.encode(
            namespace: namespaceBytes, entries: sorted, kdf: writing.kdf,
            scrypt: writing.scrypt, salt: writing.salt, keyCheck: writing.key.check,
            key: writing.key.bytes)
        try writeAtomically(bytes, directoryFD: directoryFD)
        return result
    }

    /// Temporary file, write, fsync, rename, fsync the directory.
    private func writeAtomically(_ bytes: [UInt8], directoryFD: Int32) throws {
        let suffix = try SecureRandom.bytes(6).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let temporary = POSIXFile.join(configuration.dataDirectory, temporaryPrefix + "\(getpid())-\(suffix)")
        do throws(Errno) {
            let fd = try systemCall { open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600) }
            do throws(Errno) {
                defer { POSIXFile.close(fd) }
                try systemCallVoid { fchmod(fd, 0o600) }
                try POSIXFile.writeAll(fd, bytes)
                try POSIXFile.sync(fd)
            } catch {
                _ = unlink(temporary)
                throw error
            }
            do throws(Errno) {
                try systemCallVoid { rename(temporary, path) }
            } catch {
                _ = unlink(temporary)
                throw error
            }
            try POSIXFile.sync(directoryFD)
        } catch {
            throw ioError("write the file", error)
        }
    }

    /// `.<namespace>.secrets.tmp-`: temporary files start with a dot, which namespaces
    /// may not, so they never collide with another namespace's files.
    private var temporaryPrefix: String { "." + fileName + ".tmp-" }

    /// Removes temporary files a killed writer left behind. Only called under the
    /// lock, when no other writer can be mid-write.
    private func removeStaleTemporaryFiles() {
        let prefix = temporaryPrefix
        for name in POSIXFile.directoryEntries(configuration.dataDirectory) where name.hasPrefix(prefix) {
            _ = unlink(POSIXFile.join(configuration.dataDirectory, name))
        }
    }

    private func acquireFileLock() async throws -> @Sendable () -> Void {
        let directoryFD = try SecureDirectory.open(configuration.dataDirectory, store: storeLabel)
        POSIXFile.close(directoryFD)
        let lock: FileLock
        do throws(Errno) {
            lock = try await FileLock.acquire(lockPath)
        } catch {
            throw ioError("lock \(lockPath)", error)
        }
        let info: stat
        do throws(Errno) {
            info = try lock.status()
        } catch {
            lock.release()
            throw ioError("inspect \(lockPath)", error)
        }
        if info.st_uid != geteuid() || info.st_mode & 0o077 != 0 {
            lock.release()
            // Re-open to produce the precise fix-it message.
            guard let fd = try? POSIXFile.openIfExists(lockPath, flags: O_RDONLY) else {
                throw SecretStoreError(.permissionDenied, store: storeLabel, reason: "the lock file \(lockPath) is not private to this user")
            }
            defer { POSIXFile.close(fd) }
            try SecureDirectory.check(fd, path: lockPath, kind: .file, store: storeLabel)
            throw SecretStoreError(.permissionDenied, store: storeLabel, reason: "the lock file \(lockPath) changed while being checked; try again")
        }
        return { lock.release() }
    }

    // MARK: Errors

    private func corrupted(_ reason: String, underlying: CryptoError? = nil) -> SecretStoreError {
        SecretStoreError(
            .corrupted, store: storeLabel,
            reason: reason + "; the file is left untouched (writes are refused too) until the store is reset, which moves it aside",
            underlying: underlying)
    }

    private func ioError(_ operation: String, _ error: Errno) -> SecretStoreError {
        let code: SecretStoreError.Code =
            switch error.rawValue {
            case EACCES, EPERM, EROFS: .permissionDenied
            case EFBIG: .corrupted
            default: .ioFailure
            }
        return SecretStoreError(code, store: storeLabel, reason: "could not \(operation): \(error)", errno: error.rawValue, underlying: error)
    }
}
