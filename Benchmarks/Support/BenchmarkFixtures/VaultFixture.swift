import CBenchOpenSSL
import Glibc
public import LatchkeySecrets

/// The store with one saved record, and the by-hand reader and writer of its file.
public final class VaultFixture {
    public init() {}

    public static let entry = "session"
    let scratch = ScratchDirectory(prefix: "latchkey-bench-vault")
    public var store: EncryptedFileSecretStore?
    private var path = ""
    private var aes: RawAESGCM?
    /// Where the parts of the record live in the file; fixed while the file is unchanged.
    private var layout: (associatedData: Range<Int>, nonce: Range<Int>, ciphertext: Range<Int>, tag: Range<Int>) = (0..<0, 0..<0, 0..<0, 0..<0)
    private var record: [UInt8] = []
    private var saves = 0

    public func prepare() async throws {
        guard store == nil else { return }
        let configuration = SecretStoreConfiguration(dataDirectory: scratch.appending("data"), configDirectory: scratch.appending("config"))
        let store = try EncryptedFileSecretStore(namespace: "bench-vault", configuration: configuration)
        let codec = VaultSessionRecordCodec()
        record = codec.encode(codec.sample)
        guard (1800...2400).contains(record.count) else { fixtureFailure("the sample record is \(record.count) bytes, not about 2 KB") }
        try await store.set(Self.entry, record)
        self.store = store
        path = store.path
        guard let keyPath = configuration.keyFilePath, let key = readFile(keyPath), key.count == 32 else { fixtureFailure("key file") }
        aes = RawAESGCM(key: key)
        // The format (SecretFileFormat in LatchkeySecrets): magic 8, version 2, header length 4,
        // kdf 1, log2N 1, r 4, p 4, salt length 1 (0 for a key file), key check 16, nonce 12, …;
        // then an 8-byte checksum, the ciphertext and a 16-byte tag. The header and
        // checksum are the associated data.
        guard let file = readFile(path) else { fixtureFailure("read \(path)") }
        let headerLength = file[10..<14].reduce(0) { $0 << 8 | Int($1) }
        let nonceStart = 8 + 2 + 4 + 1 + 1 + 4 + 4 + 1 + 16
        layout = (0..<headerLength + 8, nonceStart..<nonceStart + 12, headerLength + 8..<file.count - 16, file.count - 16..<file.count)
        guard openByHand() == record else { fixtureFailure("the by-hand reader does not recover the record") }
    }

    /// open, fstat, read, close; AES-256-GCM open with the header as associated data.
    public func openByHand() -> [UInt8] {
        guard let file = readFile(path) else { fixtureFailure("read \(path)") }
        return file.withUnsafeBufferPointer { bytes in
            let part = { (range: Range<Int>) in UnsafeBufferPointer(rebasing: bytes[range]) }
            guard
                let plaintext = aes!.open(
                    nonce: part(layout.nonce), aad: part(layout.associatedData),
                    ciphertext: part(layout.ciphertext), tag: part(layout.tag))
            else { fixtureFailure("by-hand open failed") }
            return plaintext
        }
    }

    /// Seal under a fresh nonce, write a temporary file, fsync, rename over the record,
    /// fsync the directory: the durable minimum for an atomic replace.
    public func saveByHand(_ plaintext: [UInt8]) {
        let header = [UInt8](repeating: 0x5A, count: layout.associatedData.count)
        let (nonce, sealed) = plaintext.withUnsafeBufferPointer { plain in
            header.withUnsafeBufferPointer { aes!.seal(plain, aad: $0) }
        }
        // A new temporary file each time, as the store does (O_EXCL), never an overwrite.
        saves += 1
        let temporary = path + ".byhand-\(saves)"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fixtureFailure("open \(temporary)") }
        for part in [header, nonce, sealed] {
            guard part.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == part.count else { fixtureFailure("write") }
        }
        guard fsync(fd) == 0, close(fd) == 0 else { fixtureFailure("fsync") }
        let target = path + ".byhand-record"
        guard rename(temporary, target) == 0 else { fixtureFailure("rename") }
        let directory = open(scratch.appending("data"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0, fsync(directory) == 0, close(directory) == 0 else { fixtureFailure("fsync directory") }
    }
}

/// open, fstat, read, close: the whole file, or nil.
public func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    let size = Int(info.st_size)
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: max(size, 1)) { buffer, count in
        var done = 0
        while done < size {
            let n = read(fd, buffer.baseAddress! + done, size - done)
            if n <= 0 {
                failed = true
                break
            }
            done += n
        }
        count = done
    }
    return failed ? nil : bytes
}
