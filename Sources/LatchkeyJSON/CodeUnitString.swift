/// Whether two strings hold the same UTF-8 code units.
///
/// JOSE compares names and values this way (RFC 7515 §5.3, RFC 7519 §7.3: no
/// normalization). Swift's `==` is canonical equivalence: `"caf\u{E9}"` equals
/// `"cafe\u{301}"` and `"\u{212A}"` (KELVIN SIGN) equals `"K"`, which would let two
/// different issuers, audiences, key IDs or member names pass for one.
@inlinable @inline(__always)
package func sameCodeUnits(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && sameCodeUnitsOfEqualLength(a, b)
}

/// ``sameCodeUnits(_:_:)`` for strings already known to have the same UTF-8 length:
/// eight bytes at a time, in place (native and small strings are always contiguous).
@inlinable @inline(__always)
package func sameCodeUnitsOfEqualLength(_ a: String, _ b: String) -> Bool {
    // Canonical equivalence is implied by equal bytes: unequal by `==` (the standard
    // library's fast path, instant for different small ASCII strings) is unequal bytes.
    guard a == b else { return false }
    let contiguous = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right -> Bool in
            let count = min(left.count, right.count)
            guard count > 0, let l = left.baseAddress, let r = right.baseAddress else { return left.count == right.count }
            let lhs = UnsafeRawPointer(l), rhs = UnsafeRawPointer(r)
            var offset = 0
            while offset + 8 <= count {
                if lhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != rhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    return false
                }
                offset += 8
            }
            while offset < count {
                if lhs.load(fromByteOffset: offset, as: UInt8.self) != rhs.load(fromByteOffset: offset, as: UInt8.self) { return false }
                offset += 1
            }
            return left.count == right.count
        }
    }
    if let contiguous, let equal = contiguous { return equal }
    return a.utf8.elementsEqual(b.utf8)
}

/// A string that is equal to, and hashes like, another exactly when their UTF-8 code
/// units are the same: a `Set` or `Dictionary` key for JOSE strings (see
/// ``sameCodeUnits(_:_:)``). A `Set<String>` would merge canonically equivalent names.
package struct CodeUnitString: Hashable, Sendable {
    package let string: String

    @inlinable
    package init(_ string: String) { self.string = string }

    @inlinable
    package static func == (lhs: CodeUnitString, rhs: CodeUnitString) -> Bool { sameCodeUnits(lhs.string, rhs.string) }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for byte in string.utf8 { hasher.combine(byte) }
    }
}
