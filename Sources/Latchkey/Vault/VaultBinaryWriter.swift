internal import Foundation

/// Writes the fields of a binary vault record in order; ``VaultBinaryReader`` reads
/// them back. Integers are little-endian.
struct VaultBinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A length or count. Strings and provider objects held in memory are far below 4 GiB;
    /// a larger one would be clamped, and the record then refused when read, not misread.
    private mutating func length(_ count: Int) { uint32(UInt32(clamping: count)) }

    mutating func string(_ value: String) {
        let utf8 = value.utf8
        length(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { uint32(UInt32.max) }
    }

    mutating func date(_ value: Date?) {
        flag(value != nil)
        if let value { uint64(value.timeIntervalSince1970.bitPattern) }
    }

    mutating func strings(_ values: [String]) {
        length(values.count)
        for value in values { string(value) }
    }

    /// The provider JSON of the objects written so far, back to back: the record stores
    /// it before the objects, which refer to it (see ``DeferredJSONBlock``).
    private(set) var jsonBlock = ""

    /// Appends the value's compact text to ``jsonBlock`` and writes where it is.
    mutating func json(_ value: DeferredJSON) {
        let text = value.compactText
        length(jsonBlock.utf8.count)
        length(text.utf8.count)
        jsonBlock += text
    }

    mutating func append(_ other: VaultBinaryWriter) { bytes.append(contentsOf: other.bytes) }

    /// Overwrites eight bytes at `offset` (a placeholder written earlier).
    mutating func patch(_ value: UInt64, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<8 { bytes[offset + index] = raw[index] }
        }
    }
}
