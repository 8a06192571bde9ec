internal import Foundation
internal import Glibc
internal import LatchkeyJSON

/// Reads the fields of a binary vault record in order (see ``VaultRecord``'s format 2).
///
/// Every length and count comes from stored bytes, so each is checked against what is
/// left before it is used, and none is converted with a trapping initializer: a
/// truncated or damaged record is ``VaultError/malformed(_:)``, never a crash.
struct VaultBinaryReader: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    /// Where the JSON block's text is in `bytes`, once read.
    private var blockStart = 0
    private var blockCount = 0

    init(_ bytes: UnsafeRawBufferPointer, from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    private var remaining: Int { bytes.count - offset }

    private static func truncated() -> VaultError { VaultError.malformed("truncated record") }

    mutating func byte() throws(VaultError) -> UInt8 {
        guard remaining >= 1 else { throw Self.truncated() }
        defer { offset += 1 }
        return bytes.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// A flag stored as 0 or 1.
    mutating func flag() throws(VaultError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw VaultError.malformed("invalid flag")
        }
    }

    private mutating func uint32() throws(VaultError) -> UInt32 {
        guard remaining >= 4 else { throw Self.truncated() }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private mutating func uint64() throws(VaultError) -> UInt64 {
        guard remaining >= 8 else { throw Self.truncated() }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The next `count` bytes.
    private mutating func span(_ count: Int) throws(VaultError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw Self.truncated() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// A length or count: a 32-bit value, which fits in `Int` on every platform Latchkey builds for.
    private mutating func length() throws(VaultError) -> Int { Int(truncatingIfNeeded: try uint32()) }

    /// A count of elements each taking at least `minimumSize` bytes, so a damaged count
    /// can never ask for more elements than the bytes left could hold.
    mutating func count(minimumSize: Int) throws(VaultError) -> Int {
        let count = try length()
        guard count <= remaining / minimumSize else { throw Self.truncated() }
        return count
    }

    mutating func string() throws(VaultError) -> String { try string(length: try length()) }

    private mutating func string(length: Int) throws(VaultError) -> String {
        let bytes = try span(length).assumingMemoryBound(to: UInt8.self)
        // `String(decoding:)` is the specialized fast path (`String(validating:)` is generic
        // and looked up two metadata per call: ~650 instructions a string, callgrind). It
        // copies valid UTF-8 unchanged and repairs invalid UTF-8 with U+FFFD, so the bytes
        // come back unchanged exactly when they were valid.
        var string = String(decoding: bytes, as: UTF8.self)
        let unchanged = string.withUTF8 { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged else { throw VaultError.malformed("invalid UTF-8") }
        return string
    }

    /// A string, or `nil` stored as the length `UInt32.max`.
    mutating func optionalString() throws(VaultError) -> String? {
        guard remaining >= 4 else { throw Self.truncated() }
        if bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == UInt32.max {
            offset += 4
            return nil
        }
        return try string()
    }

    /// A time: a flag, then the seconds since 1970 as the bits of a finite `Double`.
    mutating func date() throws(VaultError) -> Date? {
        guard try flag() else { return nil }
        let seconds = Double(bitPattern: try uint64())
        guard seconds.isFinite else { throw VaultError.malformed("invalid time") }
        return Date(timeIntervalSince1970: seconds)
    }

    mutating func strings() throws(VaultError) -> [String] {
        let count = try count(minimumSize: 4)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try string()) }
        return strings
    }

    /// The record's block of provider JSON text (see ``DeferredJSONBlock``), which the
    /// objects after it refer to; `nil` when empty.
    mutating func jsonBlock() throws(VaultError) -> DeferredJSONBlock? {
        let length = try length()
        let start = offset
        let text = try string(length: length)
        blockStart = start
        blockCount = length
        return text.isEmpty ? nil : DeferredJSONBlock(text: text)
    }

    /// A reference into the JSON block — its start and length — to an object (`{…}`) or
    /// an array (`[…]`), kept unparsed.
    mutating func deferredJSON(_ kind: JSONKind, in block: DeferredJSONBlock?) throws(VaultError) -> DeferredJSON {
        let start = try length(), count = try length()
        guard let block, count >= 2, start <= blockCount, count <= blockCount - start,
              bytes[blockStart + start] == kind.open, bytes[blockStart + start + count - 1] == kind.close
        else { throw VaultError.malformed("invalid provider object") }
        return DeferredJSON(block, start: start, count: count)
    }

    /// The two kinds of provider JSON a record keeps.
    enum JSONKind {
        case object, array

        var open: UInt8 { self == .object ? UInt8(ascii: "{") : UInt8(ascii: "[") }
        var close: UInt8 { self == .object ? UInt8(ascii: "}") : UInt8(ascii: "]") }
    }
}
