/// The hook through which a layer above gives the parser its own well-known member
/// names: a name the strategy knows costs no allocation and no UTF-8 check, and may be
/// tagged with a slot so the caller finds that member later without a search (the JWT
/// layer marks the registered claims this way).
///
/// The parser is generic over the strategy, so a lookup is a direct static call, not a
/// closure or an existential. `package`: the strategy sees raw pointers into the input.
package protocol JSONNameInterning {
    /// The interned string for the `count` bytes at `name` (a member name as written,
    /// or as decoded when it held escapes), and the slot (0...7) it marks, if any; nil
    /// when the name is not one the strategy knows.
    ///
    /// - Parameter packed: for `count <= 8`, the bytes little-endian in one integer
    ///   (``JSONNameKey/packed(_:count:)``), which a table can switch on; otherwise a
    ///   hash to ignore. A decoded name may hold a NUL byte, so match the count too.
    static func intern(_ name: UnsafeRawPointer, count: Int, packed: UInt64) -> (name: String, slot: Int?)?
}

/// No interning: every name is built from its bytes. What ``JSONValue/parse(_:)`` uses.
package enum NoNameInterning: JSONNameInterning {
    @inline(__always)
    package static func intern(_ name: UnsafeRawPointer, count: Int, packed: UInt64) -> (name: String, slot: Int?)? { nil }
}

/// Member-name keys shared by the parser and interning strategies.
package enum JSONNameKey {
    /// Up to 8 bytes, little-endian, into one integer.
    @inlinable @inline(__always)
    package static func packed(_ p: UnsafeRawPointer, count: Int) -> UInt64 {
        if count == 8 { return UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(p.load(fromByteOffset: index, as: UInt8.self)) << (8 * UInt64(index)) }
        return value
    }
}

/// Where the top-level object's slotted members are, noted by the parser so the
/// caller reads them without searching by name: one byte per slot (0...7), holding the
/// member's position + 1 (0: absent; 255: position 254 or later, found by name).
package struct JSONMemberSlots: Sendable, Hashable {
    package enum Location: Equatable {
        case absent
        case member(Int)
        case byName
    }

    @usableFromInline
    var packed: UInt64 = 0

    @inlinable
    package init() {}

    @inlinable
    package mutating func record(_ slot: Int, at position: Int) {
        let shift = UInt64(slot * 8)
        packed = packed & ~(0xFF << shift) | UInt64(min(position + 1, 255)) << shift
    }

    @inlinable @inline(__always)
    package func location(of slot: Int) -> Location {
        switch packed >> UInt64(slot * 8) & 0xFF {
        case 0: .absent
        case 255: .byName
        case let stored: .member(Int(stored) - 1)
        }
    }
}
