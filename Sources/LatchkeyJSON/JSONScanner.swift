#if canImport(Glibc)
import Glibc
#endif

/// A validating pass over a JSON object that builds nothing: it answers whether the
/// document is one that ``JSONParser`` accepts, and where the top-level members the
/// caller asks for are — so a caller that needs only a few members (a token's
/// registered claims) parses just those, and the rest only if it is ever read.
///
/// It applies the parser's rules (RFC 8259, no duplicate names at any depth, valid
/// UTF-8, no lone surrogates, no leading zeros, no trailing data, `JSONParser.maxDepth`)
/// but covers only the common shapes. For anything else — a name with escapes, an
/// object of more than 16 members below the top level, a number with an exponent or
/// more than 15 digits, a top level of more than ``maxTopLevelMembers`` members — it
/// answers "ask the parser" (`nil`), never a guess. So it never accepts what the parser
/// refuses; a caller falls back to the parser, which gives the exact error.
package struct JSONScanner {
    /// The most top-level members the scan tracks for duplicates.
    package static var maxTopLevelMembers: Int { 64 }

    /// The top-level members the caller asked for: a slot (0..<8) → the value's byte
    /// range, packed as `start << 32 | end` (documents are under 2 GiB, so bit 63 is
    /// free), with bit 63 set for a string without escapes; 0 when absent.
    ///
    /// A hot caller reads ``packed`` itself: the readers below are not inlined across
    /// the module boundary (not even when `@inlinable`), and as calls they cost about
    /// 3 ns each, 11 per token.
    package struct Slots {
        /// Per slot, the packed range and flag described above.
        package fileprivate(set) var packed = InlineArray<8, UInt64>(repeating: 0)
        /// The flag of a string without escapes.
        package static var plainFlag: UInt64 { 1 << 63 }

        /// The value's bytes for `slot`, if the object has that member.
        @inline(__always)
        package func range(of slot: Int) -> Range<Int>? {
            let bits = packed[slot]
            guard bits != 0 else { return nil }
            return Int(truncatingIfNeeded: (bits & ~Self.plainFlag) >> 32)..<Int(truncatingIfNeeded: bits & 0xFFFF_FFFF)
        }
    }

    /// The top-level member names a caller wants, each in a slot (its index), matched by
    /// the key the scanner computes for every name anyway: for a name of 1 to 7 bytes
    /// that key is its bytes and its length, so equal keys are equal names, and finding
    /// a member's slot is a few integer compares — no call per member, no name compared.
    /// (Every name a token's reader needs is that short: `iss`, `kid`, `crit`.)
    package struct WantedNames: Sendable {
        /// Per slot, the name's key; 0 (no name of 1 to 7 bytes has it) for none.
        fileprivate var keys = InlineArray<8, UInt64>(repeating: 0)

        /// Up to 8 names, each of 1 to 7 UTF-8 bytes as they appear unescaped in the
        /// document; a longer or empty name, or one past the eighth, is never found.
        package init(_ names: [String]) {
            for (slot, name) in names.prefix(8).enumerated() {
                let utf8 = Array(name.utf8)
                guard (1...7).contains(utf8.count) else { continue }
                var word: UInt64 = 0
                for (offset, byte) in utf8.enumerated() { word |= UInt64(byte) << (8 * UInt64(offset)) }
                keys[slot] = word | UInt64(utf8.count) << 56
            }
        }

        /// The slot of the name with `key` and `count` bytes, or -1.
        @inline(__always)
        func slot(key: UInt64, count: Int) -> Int {
            guard count &- 1 < 7 else { return -1 }
            for slot in 0..<8 where keys[slot] == key { return slot }
            return -1
        }
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0
    /// Whether the last string scanned had no escapes.
    var lastStringPlain = false

    init(_ base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// Scans a document that must be a JSON object, noting where the `wanted` top-level
    /// members' values are.
    ///
    /// - Returns: the slots' value ranges when the document is valid and within the
    ///   scanner's shapes; `nil` when the parser must decide (it may be invalid, or
    ///   merely unusual). Documents under 2 GiB.
    package static func scanObject(_ bytes: UnsafeRawBufferPointer, wanted: WantedNames) -> Slots? {
        slots { scanObject(bytes, wanted: wanted, into: $0) }
    }

    /// The same scan, writing the slots' packed ranges (see ``Slots``) into `slots`, 8
    /// words (0 for a member that is absent): a hot caller reads them word by word, where
    /// a `Slots` value is copied whole at every step (its 64 bytes written 8 at a time
    /// and read 16 at a time, a stalled load each). Returns whether the document is valid
    /// and within the scanner's shapes.
    package static func scanObject(_ bytes: UnsafeRawBufferPointer, wanted: WantedNames, into slots: UnsafeMutablePointer<UInt64>) -> Bool {
        scanObject(bytes, into: slots) { key, _, count in wanted.slot(key: key, count: count) }
    }

    /// Scans a document that must be a JSON object. `slot` maps a top-level member name
    /// (its unescaped bytes) to a slot 0..<8, or -1 for a member the caller does not need.
    /// (A call per member: ``scanObject(_:wanted:)`` is the fast path.)
    package static func scanObject(_ bytes: UnsafeRawBufferPointer, slot: (UnsafeRawPointer, Int) -> Int) -> Slots? {
        slots { scanObject(bytes, into: $0) { _, name, count in slot(name, count) } }
    }

    /// The slots a scan into a buffer wrote, or nil when it failed.
    private static func slots(_ scan: (UnsafeMutablePointer<UInt64>) -> Bool) -> Slots? {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { buffer -> Slots? in
            guard let words = buffer.baseAddress, scan(words) else { return nil }
            var slots = Slots()
            for index in 0..<8 { slots.packed[index] = words[index] }
            return slots
        }
    }

    /// The scan, with `slot` given a member name's key, bytes and length; the top-level
    /// names are recorded in `shape`, when given, once they are checked.
    @inline(__always)
    static func scanObject(
        _ bytes: UnsafeRawBufferPointer, into slots: UnsafeMutablePointer<UInt64>,
        recording shape: JSONShape? = nil, slot: (UInt64, UnsafeRawPointer, Int) -> Int
    ) -> Bool {
        slots.initialize(repeating: 0, count: 8)
        guard let raw = bytes.baseAddress, bytes.count < Int(Int32.max) else { return false }
        var scanner = JSONScanner(raw.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{") else { return false }
        guard scanner.topLevelObject(into: slots, recording: shape, slot: slot) else { return false }
        scanner.skipWhitespace()
        return scanner.index == scanner.count
    }

    /// The byte at `index`, or 0 at the end (0 is never valid where it is checked).
    var peek: UInt8 { index < count ? base[index] : 0 }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    // MARK: Objects and arrays

    /// The top-level object, noting the slotted members' value ranges.
    @inline(__always)
    private mutating func topLevelObject(
        into slots: UnsafeMutablePointer<UInt64>, recording shape: JSONShape?,
        slot: (UInt64, UnsafeRawPointer, Int) -> Int
    ) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * Self.maxTopLevelMembers) { seen in
            var found = 0
            let read = members(seen: seen, found: &found) { scanner, nameKey, nameStart, nameCount in
                guard let packed = scanner.topLevelValue() else { return false }
                let slotIndex = slot(nameKey, UnsafeRawPointer(scanner.base + nameStart), nameCount)
                if slotIndex >= 0 && slotIndex < 8 { slots[slotIndex] = packed }
                return true
            }
            // The names are distinct, plain and valid UTF-8 now, whatever follows them.
            if read, let shape, let pairs = seen.baseAddress { shape.record(pairs, count: found, in: base, slot: slot) }
            return read
        }
    }

    /// A top-level member's value at `index`, as its slot word (see ``Slots``: its range,
    /// and the flag of a string without escapes); nil when it is invalid or left to the
    /// parser. Strings and numbers, nearly every top-level value, skip the general dispatch.
    @inline(__always)
    mutating func topLevelValue() -> UInt64? {
        let start = index
        lastStringPlain = false
        let first = peek
        let scanned =
            first == UInt8(ascii: "\"")
            ? string()
            : Self.isDigit(first) || first == UInt8(ascii: "-") ? number() : value(depth: 1)
        guard scanned else { return nil }
        return UInt64(truncatingIfNeeded: start) << 32 | UInt64(truncatingIfNeeded: index)
            | (first == UInt8(ascii: "\"") && lastStringPlain ? Slots.plainFlag : 0)
    }

    /// A nested object (depth ≥ 2): at most 16 members tracked, else the parser decides.
    private mutating func object(depth: Int) -> Bool {
        guard depth <= JSONParser.maxDepth else { return false }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * 16) { seen in
            var found = 0
            return members(seen: seen, found: &found) { scanner, _, _, _ in scanner.value(depth: depth) }
        }
    }

    /// The members of an object whose `{` is at `index`, each name checked against the
    /// earlier ones; `value` scans each value (from `index`, after the colon), given the
    /// name's key, start and length. `seen`
    /// (uninitialized; half its capacity is the most members tracked) keeps pairs: a
    /// name's `JSONNameKey`-like key, then `start << 32 | count`; `found` counts them.
    @inline(__always)
    private mutating func members(
        seen: UnsafeMutableBufferPointer<UInt64>, found: inout Int,
        value: (inout JSONScanner, UInt64, Int, Int) -> Bool
    ) -> Bool {
        guard let pairs = seen.baseAddress else { return false }
        let capacity = seen.count / 2
        // One bit per key seen (of 64, by the key's top bits): a name whose bit is clear
        // cannot equal an earlier one, so the earlier names are searched only on a hit.
        var keyBits: UInt64 = 0
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\""), found < capacity else { return false }
            let nameStart = index + 1
            // Names with escapes go to the parser: it compares the decoded names.
            guard let (end, ascii) = plainString(from: nameStart) else { return false }
            let nameCount = end - nameStart
            if !ascii && !Self.isValidUTF8(base + nameStart, count: nameCount) { return false }
            // Equal names have equal keys; equal keys are then compared byte for byte.
            let key = nameKey(at: nameStart, count: nameCount)
            let position = UInt64(truncatingIfNeeded: nameStart) << 32 | UInt64(truncatingIfNeeded: nameCount)
            let keyBit: UInt64 = 1 << ((key &* 0x9E37_79B9_7F4A_7C15) >> 58)
            if keyBits & keyBit != 0 {
                var earlier = 0
                while earlier < found {
                    if pairs[2 * earlier] == key {
                        let packed = pairs[2 * earlier + 1]
                        if Int(truncatingIfNeeded: packed & 0xFFFF_FFFF) == nameCount,
                            memcmp(base + Int(truncatingIfNeeded: packed >> 32), base + nameStart, nameCount) == 0
                        {
                            return false
                        }
                    }
                    earlier += 1
                }
            }
            keyBits |= keyBit
            pairs[2 * found] = key
            pairs[2 * found + 1] = position
            found += 1
            index = end + 1
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            guard value(&self, key, nameStart, nameCount) else { return false }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// A function of a name's bytes (equal names, equal keys): its first 8 bytes (fewer
    /// for a short name, the rest zero) mixed with its last 8 and its length. The name
    /// is followed by at least its closing quote, so reading 8 bytes from its start is
    /// in bounds whenever the document has 8 bytes left.
    @inline(__always)
    private func nameKey(at start: Int, count nameCount: Int) -> UInt64 {
        let raw = UnsafeRawPointer(base)
        if nameCount >= 8 {
            let first = raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)
            let last = raw.loadUnaligned(fromByteOffset: start + nameCount - 8, as: UInt64.self)
            return first ^ (last &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(truncatingIfNeeded: nameCount) << 56
        }
        var word: UInt64 = 0
        if start + 8 <= count {
            word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        } else {
            for offset in 0..<nameCount { word |= UInt64(base[start + offset]) << (8 * UInt64(offset)) }
        }
        return (word & ((1 << (8 * UInt64(nameCount))) &- 1)) | UInt64(truncatingIfNeeded: nameCount) << 56
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= JSONParser.maxDepth else { return false }
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// One value at `index`, in a container at `depth`.
    mutating func value(depth: Int) -> Bool {
        switch peek {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let literalCount = text.utf8CodeUnitCount
        guard index + literalCount <= count, memcmp(base + index, text.utf8Start, literalCount) == 0 else { return false }
        index += literalCount
        return true
    }

    // MARK: Numbers

    /// A number the parser reads without converting text: up to 15 integer digits, an
    /// optional fraction, no exponent (so always finite). Others go to the parser.
    mutating func number() -> Bool {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard Self.isDigit(peek) else { return false }
        let digitsStart = index
        if peek == UInt8(ascii: "0") {
            index += 1
            if Self.isDigit(peek) { return false }
        } else {
            while Self.isDigit(peek) { index += 1 }
        }
        guard index - digitsStart <= 15 else { return false }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard Self.isDigit(peek) else { return false }
            while Self.isDigit(peek) { index += 1 }
        }
        return peek != UInt8(ascii: "e") && peek != UInt8(ascii: "E")
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}

/// The scanner's verdict for the fuzz targets (`@_spi(Fuzzing) import LatchkeyJSON`):
/// not API, it may change or go away in any release.
@_spi(Fuzzing) public enum JSONScannerProbe {
    /// Whether the scanner alone accepts `bytes` as a JSON object (false: it is invalid,
    /// or left to the parser).
    public static func accepts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { JSONScanner.scanObject($0) { _, _ in -1 } != nil }
    }
}
