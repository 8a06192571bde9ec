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

    mutating func string() throws(VaultError) -> String {
        let bytes = try span(try length()).assumingMemoryBound(to: UInt8.self)
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

    /// Compact JSON text of an object (`{…}`) or array (`[…]`), kept unparsed.
    mutating func deferredJSON(_ kind: JSONKind) throws(VaultError) -> DeferredJSON {
        let text = try string()
        let utf8 = text.utf8
        guard utf8.count >= 2, utf8.first == kind.open, utf8.last == kind.close else { throw VaultError.malformed("invalid provider object") }
        return DeferredJSON(encoded: text, fallback: kind.empty)
    }

    /// The two kinds of provider JSON a record keeps.
    enum JSONKind {
        case object, array

        var open: UInt8 { self == .object ? UInt8(ascii: "{") : UInt8(ascii: "[") }
        var close: UInt8 { self == .object ? UInt8(ascii: "}") : UInt8(ascii: "]") }
        var empty: JSONValue { self == .object ? .object([:]) : .array([]) }
    }
}
