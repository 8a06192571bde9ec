#if canImport(Glibc)
import Glibc
#endif

/// The top-level member names of the last object a scan read, in order, with the slot
/// each was wanted in: the tokens one issuer sends have the same claims in the same order,
/// so the next payload is scanned against these names — each compared in a word or two —
/// instead of being checked for escapes, hashed, compared with every earlier name for
/// duplicates and looked up among the wanted ones.
///
/// Sound because the recorded names are distinct, free of escapes and control
/// characters, and valid UTF-8 (they passed the full scan): a document whose names are
/// byte-for-byte these, in this order (or a prefix of them), has distinct names, each
/// one the full scan would accept. Anything else — another name, one more member, an
/// invalid value — is scanned in full, which gives the verdict and records the new names.
///
/// Memory the caller owns (``byteCount`` bytes, zeroed before the first use), read and
/// written by one thread at a time, for one set of ``JSONScanner/WantedNames`` (the
/// slots recorded are that set's).
package struct JSONShape {
    /// The most members recorded; an object with more is always scanned in full.
    static let maxMembers = 32
    /// The most bytes of names past their first eight recorded.
    static let maxTailBytes = 256
    /// The memory a shape needs: its member count, per member a key word and a word of
    /// length, slot and tail offset, then the names' tails.
    package static let byteCount = 8 * (1 + 2 * maxMembers) + maxTailBytes

    private let words: UnsafeMutablePointer<UInt64>

    /// A shape in `memory` (at least ``byteCount`` bytes, 8-aligned, zeroed at first).
    package init(_ memory: UnsafeMutableRawPointer) {
        words = memory.assumingMemoryBound(to: UInt64.self)
    }

    /// Members recorded; 0 when none.
    var memberCount: Int { Int(truncatingIfNeeded: words[0]) }

    /// A member's first (up to) eight name bytes, little-endian, the rest zero.
    @inline(__always)
    func key(_ member: Int) -> UInt64 { words[1 + member] }

    /// A member's name length (bits 0–15), slot + 1 (bits 16–23; 0: not wanted) and the
    /// offset of its bytes past the eighth in the tails (bits 32–47).
    @inline(__always)
    func meta(_ member: Int) -> UInt64 { words[1 + Self.maxMembers + member] }

    @inline(__always)
    func tail(at offset: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(words + 1 + 2 * Self.maxMembers) + offset
    }

    /// Records the names of a scanned object (`pairs` as `JSONScanner.members` keeps them:
    /// a key, then `start << 32 | length`), or forgets the shape when they do not fit.
    func record(
        _ pairs: UnsafePointer<UInt64>, count: Int, in base: UnsafePointer<UInt8>,
        slot: (UInt64, UnsafeRawPointer, Int) -> Int
    ) {
        words[0] = 0
        guard count <= Self.maxMembers else { return }
        let tails = UnsafeMutableRawPointer(words + 1 + 2 * Self.maxMembers)
        var tailUsed = 0
        for member in 0..<count {
            let position = pairs[2 * member + 1]
            let start = Int(truncatingIfNeeded: position >> 32)
            let length = Int(truncatingIfNeeded: position & 0xFFFF_FFFF)
            let tailLength = max(length - 8, 0)
            guard length <= 0xFFFF, tailUsed + tailLength <= Self.maxTailBytes else { return }
            var key: UInt64 = 0
            for offset in 0..<min(length, 8) { key |= UInt64(base[start + offset]) << (8 * UInt64(offset)) }
            let wanted = slot(pairs[2 * member], UnsafeRawPointer(base + start), length)
            let slotBits = wanted >= 0 && wanted < 8 ? UInt64(wanted + 1) : 0
            if tailLength > 0 { (tails + tailUsed).copyMemory(from: base + start + 8, byteCount: tailLength) }
            words[1 + member] = key
            words[1 + Self.maxMembers + member] = UInt64(length) | slotBits << 16 | UInt64(tailUsed) << 32
            tailUsed += tailLength
        }
        words[0] = UInt64(count)
    }
}

extension JSONScanner {
    /// ``scanObject(_:wanted:into:)`` against the names `shape` recorded; a document
    /// whose names differ is scanned in full, and its names recorded for the next one.
    package static func scanObject(
        _ bytes: UnsafeRawBufferPointer, wanted: WantedNames, into slots: UnsafeMutablePointer<UInt64>,
        shape: JSONShape
    ) -> Bool {
        if shape.memberCount > 0, let raw = bytes.baseAddress, bytes.count < Int(Int32.max) {
            var scanner = JSONScanner(raw.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            if scanner.shapedObject(shape, into: slots) { return true }
        }
        return scanObject(bytes, into: slots, recording: shape) { key, _, count in wanted.slot(key: key, count: count) }
    }

    /// The whole document, when it is an object whose names are the shape's (or their
    /// first ones), in order, and everything else the full scan accepts; false for
    /// anything else, which the full scan then decides.
    private mutating func shapedObject(_ shape: JSONShape, into slots: UnsafeMutablePointer<UInt64>) -> Bool {
        slots.initialize(repeating: 0, count: 8)
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else { return false }
        index += 1
        let memberCount = shape.memberCount
        let raw = UnsafeRawPointer(base)
        var member = 0
        while member < memberCount {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { return false }
            let nameStart = index + 1
            let meta = shape.meta(member)
            let length = Int(truncatingIfNeeded: meta & 0xFFFF)
            let nameEnd = nameStart + length
            // The name's first eight bytes as one word (the document goes on past them:
            // a name is followed by its quote, a colon, a value and a brace).
            guard nameStart + 8 <= count, nameEnd < count, base[nameEnd] == UInt8(ascii: "\"") else { return false }
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: nameStart, as: UInt64.self))
            let mask: UInt64 = length >= 8 ? ~0 : (1 << UInt64(8 * length)) &- 1
            guard word & mask == shape.key(member) else { return false }
            if length > 8 {
                guard memcmp(base + nameStart + 8, shape.tail(at: Int(truncatingIfNeeded: (meta >> 32) & 0xFFFF)), length - 8) == 0 else {
                    return false
                }
            }
            index = nameEnd + 1
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            guard let packed = topLevelValue() else { return false }
            let slot = Int(truncatingIfNeeded: (meta >> 16) & 0xFF) &- 1
            if slot >= 0 { slots[slot] = packed }
            member += 1
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                skipWhitespace()
                return index == count
            default: return false
            }
        }
        // More members than the shape has: the full scan checks the others for duplicates.
        return false
    }
}
