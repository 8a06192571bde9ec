internal import Foundation
internal import Glibc
internal import LatchkeyJSON

/// Reads the fields of a binary vault record in order (see ``VaultRecord``'s format 2).
///
/// Every length and count comes from stored bytes, so each is checked against what is
/// left before it is used, and none is converted with a trapping initializer: a
/// truncated or damaged record is ``VaultError/malformed(_:)``, never a crash.
///
/// The first problem is kept in ``failure`` and every later read gives an empty value
/// without reading, so the caller checks once at the end. (Throwing from each read cost
/// an error check after every field: ~0.5k instructions a load, callgrind.)
struct VaultBinaryReader: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    /// The first problem found; once set, reads return empty values.
    private(set) var failure: VaultError?
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

    /// Notes `reason` unless a problem was found before, and stops reading.
    mutating func fail(_ reason: String) {
        if failure == nil { failure = VaultError.malformed(reason) }
        offset = bytes.count
    }

    /// Whether `count` more bytes can be read (noting a truncation when not).
    @inline(__always)
    private mutating func has(_ count: Int) -> Bool {
        if failure == nil, count >= 0, count <= remaining { return true }
        fail("truncated record")
        return false
    }

    @inline(__always)
    mutating func byte() -> UInt8 {
        guard has(1) else { return 0 }
        defer { offset += 1 }
        return bytes.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// A flag stored as 0 or 1.
    @inline(__always)
    mutating func flag() -> Bool {
        switch byte() {
        case 0: return false
        case 1: return true
        default:
            fail("invalid flag")
            return false
        }
    }

    @inline(__always)
    private mutating func uint32() -> UInt32 {
        guard has(4) else { return 0 }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    private mutating func uint64() -> UInt64 {
        guard has(8) else { return 0 }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A length or count: a 32-bit value, which fits in `Int` on every platform Latchkey builds for.
    @inline(__always)
    private mutating func length() -> Int { Int(truncatingIfNeeded: uint32()) }

    /// A count of elements each taking at least `minimumSize` bytes, so a damaged count
    /// can never ask for more elements than the bytes left could hold.
    mutating func count(minimumSize: Int) -> Int {
        let count = length()
        guard count <= remaining / minimumSize else {
            fail("truncated record")
            return 0
        }
        return count
    }

    mutating func string() -> String { string(length: length()) }

    private mutating func string(length: Int) -> String {
        guard has(length) else { return "" }
        let bytes = UnsafeBufferPointer(start: (self.bytes.baseAddress! + offset).assumingMemoryBound(to: UInt8.self), count: length)
        offset += length
        // `String(decoding:)` is the specialized fast path (`String(validating:)` is generic
        // and looked up two metadata per call: ~650 instructions a string, callgrind). It
        // copies valid UTF-8 unchanged and repairs invalid UTF-8 with U+FFFD, so the bytes
        // come back unchanged exactly when they were valid.
        var string = String(decoding: bytes, as: UTF8.self)
        let unchanged = string.withUTF8 { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged else {
            fail("invalid UTF-8")
            return ""
        }
        return string
    }

    /// A string, or `nil` stored as the length `UInt32.max`.
    mutating func optionalString() -> String? {
        let length = uint32()
        return length == UInt32.max ? nil : string(length: Int(truncatingIfNeeded: length))
    }

    /// A time: a flag, then the seconds since 1970 as the bits of a finite `Double`.
    mutating func date() -> Date? {
        guard flag() else { return nil }
        let seconds = Double(bitPattern: uint64())
        guard seconds.isFinite else {
            fail("invalid time")
            return nil
        }
        return Date(timeIntervalSince1970: seconds)
    }

    mutating func strings() -> [String] {
        let count = count(minimumSize: 4)
        guard count > 0 else { return [] }
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(string()) }
        return strings
    }

    /// The record's block of provider JSON text (see ``DeferredJSONBlock``), which the
    /// objects after it refer to; `nil` when empty.
    mutating func jsonBlock() -> DeferredJSONBlock? {
        let length = length()
        let start = offset
        let text = string(length: length)
        guard failure == nil, !text.isEmpty else { return nil }
        blockStart = start
        blockCount = length
        return DeferredJSONBlock(text: text)
    }

    /// A reference into the JSON block — its start and length — to an object (`{…}`) or
    /// an array (`[…]`), kept unparsed.
    mutating func deferredJSON(_ kind: JSONKind, in block: DeferredJSONBlock?) -> DeferredJSON {
        let start = length(), count = length()
        guard failure == nil else { return kind.empty }
        guard let block, count >= 2, start <= blockCount, count <= blockCount - start,
            bytes[blockStart + start] == kind.open, bytes[blockStart + start + count - 1] == kind.close
        else {
            fail("invalid provider object")
            return kind.empty
        }
        return DeferredJSON(block, start: start, count: count)
    }

    /// The two kinds of provider JSON a record keeps.
    enum JSONKind {
        case object, array

        var open: UInt8 { self == .object ? UInt8(ascii: "{") : UInt8(ascii: "[") }
        var close: UInt8 { self == .object ? UInt8(ascii: "}") : UInt8(ascii: "]") }
        /// What a read gives after a failure (never used: the record is refused).
        var empty: DeferredJSON { DeferredJSON(self == .object ? .object([:]) : .array([])) }
    }
}
