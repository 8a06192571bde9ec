internal import LatchkeyCrypto

/// The on-disk format of one namespace's secret file.
///
/// All integers are big-endian. The file is one AES-256-GCM record:
///
/// ```
/// header (the additional authenticated data, with the checksum after it)
///   magic           8   "LKSECRET"
///   version         2   1
///   header length   4   bytes from the magic up to (not including) the checksum
///   kdf             1   1 = random key from a key file, 2 = scrypt from a passphrase
///   log2 N          1   scrypt only, else 0
///   r               4   scrypt only, else 0
///   p               4   scrypt only, else 0
///   salt length     1   16…64 for scrypt, 0 for a key file
///   salt            n
///   key check      16   HKDF-SHA256(key, info "latchkey secret file key check v1")
///   nonce          12   fresh and random on every write
///   namespace len   2
///   namespace       n   UTF-8
///   entry count     4
///   per entry:      name length (2), name (UTF-8), value length (4)
/// checksum          8   SHA-256 of the header, truncated
/// ciphertext        Σ value lengths: the values, concatenated in entry order
/// tag              16
/// ```
///
/// The header — version, KDF parameters, namespace and every entry's name and length —
/// is the record's associated data, so moving a value to another name, to another
/// namespace or under other parameters fails authentication. Names are therefore
/// visible to anyone who can read the file (which only its owner can); values are not.
///
/// The checksum adds no security (the tag does that); it tells a damaged header
/// ("corrupted") from an intact one written under another key ("wrong key") or by
/// another format version ("unsupported version"), and it is only computed when
/// something already failed.
enum SecretFileFormat {
    static let magic: [UInt8] = Array("LKSECRET".utf8)
    static let currentVersion: UInt16 = 1
    static let checksumLength = 8
    static let keyCheckLength = 16
    static let maxEntries = 100_000
    static let keyCheckInfo: [UInt8] = Array("latchkey secret file key check v1".utf8)
    /// Bytes before the version-specific fields: magic, version and header length.
    static let prefixLength = 14

    /// How the key of a file is obtained.
    enum KDF: UInt8, Sendable {
        case keyFile = 1
        case scrypt = 2
    }

    /// What is wrong with a file that does not parse.
    enum Problem: Error {
        case corrupted(String)
        case unsupportedVersion(UInt16)
    }

    /// A parsed file: offsets into the file's bytes, nothing decrypted yet.
    struct Parsed {
        var version: UInt16
        var kdf: KDF
        var scrypt: ScryptParameters
        var salt: ArraySlice<UInt8>
        var keyCheck: ArraySlice<UInt8>
        var nonce: ArraySlice<UInt8>
        var namespace: ArraySlice<UInt8>
        /// Each entry's name (a range of the file) and value (a range of the plaintext).
        var entries: [(name: Range<Int>, value: Range<Int>)]
        var headerLength: Int
        var ciphertext: Range<Int>
        var tag: Range<Int>

        /// The associated data: the header and its checksum.
        var associatedDataLength: Int { headerLength + SecretFileFormat.checksumLength }
    }

    /// Whether the header's checksum matches: an intact header means a decryption
    /// failure is a wrong key, not damage.
    static func headerIsIntact(_ bytes: [UInt8], headerLength: Int) -> Bool {
        guard headerLength >= prefixLength, headerLength + checksumLength <= bytes.count else { return false }
        let digest = HashAlgorithm.sha256.hash(bytes[0..<headerLength])
        return digest.count >= checksumLength && digest[0..<checksumLength].elementsEqual(bytes[headerLength..<headerLength + checksumLength])
    }

    /// Parses the structure of a file.
    static func parse(_ bytes: [UInt8]) throws(Problem) -> Parsed {
        guard bytes.count >= prefixLength else {
            throw .corrupted("the file is truncated (\(bytes.count) bytes)")
        }
        guard bytes[0..<8].elementsEqual(magic) else {
            throw .corrupted("the file does not start with the Latchkey secret file signature")
        }
        var reader = Reader(bytes: bytes, position: 8, end: bytes.count)
        let version = reader.uint16()!
        let headerLength = Int(reader.uint32()!)
        let minimumLength = headerLength + checksumLength + AESGCM.tagByteCount
        guard headerLength >= prefixLength, minimumLength <= bytes.count else {
            throw .corrupted("the file is truncated (\(bytes.count) bytes, the header alone claims \(headerLength))")
        }
        let intact = { headerIsIntact(bytes, headerLength: headerLength) }
        func damaged(_ reason: String) -> Problem {
            .corrupted(intact() ? reason : "the header is damaged (its checksum does not match)")
        }
        guard version == currentVersion else {
            throw intact() ? .unsupportedVersion(version) : .corrupted("the header is damaged (its checksum does not match)")
        }
        reader.end = headerLength
        guard let kdfByte = reader.uint8(), let log2N = reader.uint8(), let r = reader.uint32(), let p = reader.uint32(),
            let saltLength = reader.uint8(), let salt = reader.bytes(Int(saltLength)),
            let keyCheck = reader.bytes(keyCheckLength), let nonce = reader.bytes(AESGCM.nonceByteCount),
            let namespaceLength = reader.uint16(), let namespace = reader.bytes(Int(namespaceLength)),
            let count = reader.uint32()
        else { throw damaged("the header is malformed") }
        guard let kdf = KDF(rawValue: kdfByte) else { throw damaged("unknown key derivation \(kdfByte)") }
        let scrypt = ScryptParameters(unchecked: log2N, r: r, p: p)
        switch kdf {
        case .keyFile:
            guard saltLength == 0, log2N == 0, r == 0, p == 0 else { throw damaged("key-file parameters are not zero") }
        case .scrypt:
            guard (16...64).contains(saltLength) else { throw damaged("the scrypt salt is \(saltLength) bytes, not 16…64") }
            if let problem = scrypt.boundsProblem {
                throw damaged("the scrypt parameters are out of bounds: \(problem)")
            }
        }
        guard count <= maxEntries else { throw damaged("the header claims \(count) entries") }
        var entries: [(name: Range<Int>, value: Range<Int>)] = []
        entries.reserveCapacity(Int(count))
        var plaintextLength = 0
        for _ in 0..<Int(count) {
            guard let nameLength = reader.uint16(), let name = reader.range(Int(nameLength)), let valueLength = reader.uint32()
            else { throw damaged("the entry table is malformed") }
            entries.append((name, plaintextLength..<plaintextLength + Int(valueLength)))
            plaintextLength += Int(valueLength)
        }
        guard reader.position == headerLength else { throw damaged("the header has unexpected trailing bytes") }
        let ciphertextStart = headerLength + checksumLength
        guard ciphertextStart + plaintextLength + AESGCM.tagByteCount == bytes.count else {
            throw damaged(
                "the file is \(bytes.count) bytes but its header describes \(ciphertextStart + plaintextLength + AESGCM.tagByteCount) (truncated or extended)"
            )
        }
        return Parsed(
            version: version, kdf: kdf, scrypt: scrypt, salt: salt, keyCheck: keyCheck, nonce: nonce,
            namespace: namespace, entries: entries, headerLength: headerLength,
            ciphertext: ciphertextStart..<ciphertextStart + plaintextLength,
            tag: ciphertextStart + plaintextLength..<bytes.count)
    }

    /// Decrypts a parsed file; throws the crypto layer's authentication failure.
    static func decrypt(_ bytes: [UInt8], _ parsed: Parsed, key: AESGCMOpeningKey) throws(CryptoError) -> [UInt8] {
        try key.open(
            nonce: parsed.nonce, associatedData: bytes[0..<parsed.associatedDataLength],
            ciphertext: bytes[parsed.ciphertext], tag: bytes[parsed.tag])
    }

    /// The size of the file ``encode(namespace:entries:kdf:scrypt:salt:keyCheck:key:)``
    /// would write, computed without encrypting.
    static func encodedSize(namespace: [UInt8], entries: [(name: [UInt8], value: [UInt8])], saltCount: Int) -> Int {
        let fixed = prefixLength + 1 + 1 + 4 + 4 + 1 + saltCount + keyCheckLength + AESGCM.nonceByteCount + 2 + namespace.count + 4
        let perEntry = entries.reduce(0) { $0 + 2 + $1.name.count + 4 + $1.value.count }
        return fixed + perEntry + checksumLength + AESGCM.tagByteCount
    }

    /// Encodes and encrypts `entries` (sorted by name bytes) under `key`, with a fresh nonce.
    static func encode(
        namespace: [UInt8], entries: [(name: [UInt8], value: [UInt8])], kdf: KDF,
        scrypt: ScryptParameters?, salt: [UInt8], keyCheck: [UInt8], key: [UInt8]
    ) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(AESGCM.nonceByteCount)
        var header: [UInt8] = magic
        header.reserveCapacity(128 + entries.reduce(0) { $0 + $1.name.count + 6 })
        append(&header, currentVersion)
        append(&header, UInt32(0))
        header.append(kdf.rawValue)
        header.append(scrypt?.log2N ?? 0)
        append(&header, scrypt?.r ?? 0)
        append(&header, scrypt?.p ?? 0)
        header.append(UInt8(salt.count))
        header += salt
        header += keyCheck
        header += nonce
        append(&header, UInt16(namespace.count))
        header += namespace
        append(&header, UInt32(entries.count))
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(entries.reduce(0) { $0 + $1.value.count })
        for entry in entries {
            append(&header, UInt16(entry.name.count))
            header += entry.name
            append(&header, UInt32(entry.value.count))
            plaintext += entry.value
        }
        let headerLength = UInt32(header.count)
        header.replaceSubrange(
            10..<14,
            with: [
                UInt8(headerLength >> 24), UInt8(truncatingIfNeeded: headerLength >> 16),
                UInt8(truncatingIfNeeded: headerLength >> 8), UInt8(truncatingIfNeeded: headerLength),
            ])
        header += HashAlgorithm.sha256.hash(header).prefix(checksumLength)
        let box = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: header)
        return header + box.ciphertext + box.tag
    }

    /// The key check stored in headers: proves a key is the right one without
    /// revealing anything about it.
    static func keyCheck(for key: [UInt8]) throws -> [UInt8] {
        try KeyDerivation.hkdf(.sha256, inputKey: key, salt: [], info: keyCheckInfo, outputByteCount: keyCheckLength)
    }

    private static func append<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    /// A bounds-checked big-endian reader.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        var end: Int

        mutating func range(_ count: Int) -> Range<Int>? {
            guard count >= 0, end - position >= count else { return nil }
            defer { position += count }
            return position..<position + count
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            range(count).map { bytes[$0] }
        }

        mutating func uint8() -> UInt8? { range(1).map { bytes[$0.lowerBound] } }

        mutating func uint16() -> UInt16? {
            range(2).map { UInt16(bytes[$0.lowerBound]) << 8 | UInt16(bytes[$0.lowerBound + 1]) }
        }

        mutating func uint32() -> UInt32? {
            range(4).map { r in r.reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) } }
        }
    }
}
