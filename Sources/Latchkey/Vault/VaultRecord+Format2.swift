internal import Foundation

/// The binary record's fixed header: magic, format, checksum of the body.
enum BinaryHeader {
    static let magic: (UInt8, UInt8, UInt8, UInt8) = (0x89, 0x4C, 0x4B, 0x56)
    /// Where the format, the checksum and the body start.
    static let formatOffset = 4
    static let checksumOffset = 6
    static let bodyOffset = 14

    /// Whether `bytes` start with the magic (a JSON record starts with `{` or whitespace).
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && (bytes[0], bytes[1], bytes[2], bytes[3]) == magic
    }
}

/// Formats 2 and 3, the binary record (see ``VaultRecord``).
extension VaultRecord {
    /// Which optional objects a record holds: one bit each, in body order.
    private enum Present {
        static let session: UInt8 = 1 << 0
        static let user: UInt8 = 1 << 1
        static let memberSession: UInt8 = 1 << 2
        static let member: UInt8 = 1 << 3
        static let organization: UInt8 = 1 << 4
        static let all: UInt8 = 0x1F
    }

    /// The record in the current format. Deterministic (token attributes in key order),
    /// so the store can skip a write that changes nothing.
    func encoded() -> [UInt8] {
        var writer = VaultBinaryWriter(capacity: 1024 + tokens.accessToken.utf8.count + 2 * (tokens.idToken?.utf8.count ?? 0))
        writer.byte(BinaryHeader.magic.0)
        writer.byte(BinaryHeader.magic.1)
        writer.byte(BinaryHeader.magic.2)
        writer.byte(BinaryHeader.magic.3)
        // Format 2 unless there are token sets: a record without is what it always was.
        let format = tokenSets.isEmpty ? 2 : 3
        writer.byte(UInt8(truncatingIfNeeded: format))
        writer.byte(UInt8(truncatingIfNeeded: format >> 8))
        writer.uint64(0)
        writer.string(provider)
        tokens.write(to: &writer)
        writer.date(lastValidatedAt)
        var present: UInt8 = 0
        if session != nil { present |= Present.session }
        if user != nil { present |= Present.user }
        if memberSession != nil { present |= Present.memberSession }
        if member != nil { present |= Present.member }
        if organization != nil { present |= Present.organization }
        writer.byte(present)
        var objects = VaultBinaryWriter(capacity: 512)
        session?.write(to: &objects)
        user?.write(to: &objects)
        memberSession?.write(to: &objects)
        member?.write(to: &objects)
        organization?.write(to: &objects)
        writer.string(objects.jsonBlock)
        writer.append(objects)
        if !tokenSets.isEmpty {
            writer.uint32(UInt32(clamping: tokenSets.count))
            for set in tokenSets {
                writer.optionalString(set.audience)
                writer.optionalString(set.scope)
                set.tokens.write(to: &writer)
            }
        }
        let checksum = writer.bytes.withUnsafeBytes { VaultChecksum.of(UnsafeRawBufferPointer(rebasing: $0[BinaryHeader.bodyOffset...])) }
        writer.patch(checksum, at: BinaryHeader.checksumOffset)
        return writer.bytes
    }

    static func decodeBinary(_ bytes: [UInt8], expectedProvider: String) throws(VaultError) -> VaultRecord {
        guard bytes.count >= BinaryHeader.bodyOffset else { throw VaultError.malformed("truncated record") }
        let format = Int(bytes[BinaryHeader.formatOffset]) | Int(bytes[BinaryHeader.formatOffset + 1]) << 8
        guard format <= currentFormat else { throw newerFormat(format) }
        guard format == 2 || format == 3 else { throw VaultError.malformed("format \(format) is not stored in binary") }
        var failure = VaultError.malformed("checksum mismatch")
        // Not a `Result`: taking the record out of one copied it (callgrind).
        let record = bytes.withUnsafeBytes { raw -> VaultRecord? in
            let stored = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: BinaryHeader.checksumOffset, as: UInt64.self))
            guard VaultChecksum.of(UnsafeRawBufferPointer(rebasing: raw[BinaryHeader.bodyOffset...])) == stored else { return nil }
            var reader = VaultBinaryReader(raw, from: BinaryHeader.bodyOffset)
            do throws(VaultError) { return try decodeBody(&reader, expectedProvider: expectedProvider, format: format) } catch {
                failure = error
                return nil
            }
        }
        guard let record else { throw failure }
        return record
    }

    private static func decodeBody(_ reader: inout VaultBinaryReader, expectedProvider: String, format: Int) throws(VaultError) -> VaultRecord {
        let provider = reader.string()
        if let failure = reader.failure { throw failure }
        try checkBinding(provider, expected: expectedProvider)
        // Arguments are read in order: the tokens, then the last validation.
        var record = VaultRecord(provider: provider, tokens: SessionTokens(vault: &reader), lastValidatedAt: reader.date())
        record.readObjects(&reader)
        if format == 3 { record.readTokenSets(&reader) }
        if let failure = reader.failure { throw failure }
        guard reader.isAtEnd else { throw VaultError.malformed("data after the record") }
        return record
    }

    /// Format 3's token sets, after the objects; the caller checks `reader.failure`.
    private mutating func readTokenSets(_ reader: inout VaultBinaryReader) {
        let count = reader.count(minimumSize: 8)
        guard count > 0, count <= Self.maximumTokenSets else { return reader.fail("format 3 holds 1 to \(Self.maximumTokenSets) token sets") }
        tokenSets.reserveCapacity(count)
        for _ in 0..<count {
            let audience = reader.optionalString()
            let scope = reader.optionalString()
            tokenSets.append(TokenSet(audience: audience, scope: scope, tokens: SessionTokens(vault: &reader)))
            if reader.failure != nil { return }
        }
    }

    /// The objects, after the tokens and the last validation, in reading order; the
    /// caller checks `reader.failure`. (Assigned into the record: an initializer reading
    /// all fields built the record aside and copied it out, ~1k instructions a load.)
    private mutating func readObjects(_ reader: inout VaultBinaryReader) {
        let present = reader.byte()
        if present & ~Present.all != 0 { reader.fail("unknown object") }
        let block = reader.jsonBlock()
        if present & Present.session != 0 { session = Session(vault: &reader, json: block) }
        if present & Present.user != 0 { user = User(vault: &reader, json: block) }
        if present & Present.memberSession != 0 { memberSession = MemberSession(vault: &reader, json: block) }
        if present & Present.member != 0 { member = Member(vault: &reader, json: block) }
        if present & Present.organization != 0 { organization = Organization(vault: &reader, json: block) }
    }
}
