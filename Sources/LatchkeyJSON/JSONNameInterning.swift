internal import Glibc

/// The hook through which a layer above gives the parser its own well-known member
/// names: a name the hook knows costs no allocation and no UTF-8 check, and may be
/// tagged with a slot so the caller finds that member later by position (the JWT layer
/// marks a claims set's registered claims and a header's `alg`, `kid`, … this way).
///
/// The layer above supplies data — its names and their slots — and the parser looks
/// names up in a small open-addressing table keyed by the same 64-bit name key it
/// computes for the duplicate check, all inside this module. (Measured with callgrind
/// on the JWT decode loop: a parser generic over a strategy protocol ran unspecialized
/// when called from LatchkeyJWT, paying a metadata lookup per document and a witness
/// call per name; a closure or C function pointer per name cost ~30 instructions more
/// than this table.) `package`: built once by the layer above, held for the process.
package final class JSONNameInterning: Sendable {
    /// The interned strings, by index.
    package let names: [String]
    /// The slot (0...7) each name marks, by index; -1 for none.
    package let slots: [Int8]

    /// One cell of the table: a name's key and length, its index and slot.
    private struct Cell {
        var key: UInt64 = 0
        /// The name's UTF-8 length + 1; 0 marks an empty cell.
        var lengthPlusOne: Int32 = 0
        var index: Int16 = 0
        var slot: Int8 = -1
    }

    /// Open addressing on the key, at most a quarter full: a lookup reads one cell.
    private let cells: [Cell]
    private let mask: Int

    /// A table of `names`, each marking the slot at the same index of `slots` (-1 or
    /// absent: none). Names must be distinct.
    package init(names: [String], slots: [Int8]) {
        self.names = names
        self.slots = names.indices.map { $0 < slots.count ? slots[$0] : -1 }
        var size = 16
        while size < names.count * 4 { size *= 2 }
        var cells = [Cell](repeating: Cell(), count: size)
        for (index, name) in names.enumerated() {
            var name = name
            let key = name.withUTF8 { utf8 in
                utf8.isEmpty ? 0 : JSONNameKey.key(UnsafeRawPointer(utf8.baseAddress!), count: utf8.count)
            }
            var cell = Self.cell(key, mask: size - 1)
            while cells[cell].lengthPlusOne != 0 { cell = (cell + 1) & (size - 1) }
            cells[cell] = Cell(key: key, lengthPlusOne: Int32(name.utf8.count + 1), index: Int16(index), slot: self.slots[index])
        }
        self.cells = cells
        self.mask = size - 1
    }

    @inline(__always)
    private static func cell(_ key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// The interned name and slot for the `count` bytes at `name`, whose key is `key`.
    @inline(__always)
    func lookup(_ name: UnsafeRawPointer, count: Int, key: UInt64) -> (name: String, slot: Int?)? {
        var index = Self.cell(key, mask: mask)
        while true {
            let cell = cells[index]
            if cell.lengthPlusOne == 0 { return nil }
            if cell.key == key && Int(cell.lengthPlusOne) == count + 1 {
                let known = names[Int(cell.index)]
                // Up to 8 bytes the key is the bytes themselves; longer names are confirmed.
                if count <= 8 || Self.equal(known, name, count) { return (known, cell.slot < 0 ? nil : Int(cell.slot)) }
            }
            index = (index + 1) & mask
        }
    }

    private static func equal(_ known: String, _ name: UnsafeRawPointer, _ count: Int) -> Bool {
        known.utf8.withContiguousStorageIfAvailable { utf8 in memcmp(utf8.baseAddress!, name, count) == 0 }
            ?? known.utf8.elementsEqual(UnsafeRawBufferPointer(start: name, count: count))
    }
}

/// Member-name keys shared by the parser and interning strategies.
package enum JSONNameKey {
    /// A function of a name's bytes: equal names have equal keys. Up to 8 bytes it is
    /// the bytes themselves, packed; longer names mix length, first and last 8 bytes.
    @inline(__always)
    package static func key(_ pointer: UnsafeRawPointer, count: Int) -> UInt64 {
        if count <= 8 { return packed(pointer, count: count) }
        let first = pointer.loadUnaligned(as: UInt64.self)
        let last = pointer.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        return first ^ (last &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(count) << 56
    }

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
