/// Whether two strings hold the same UTF-8 code units.
///
/// JOSE compares names and values this way (RFC 7515 §5.3, RFC 7519 §7.3: no
/// normalization). Swift's `==` is canonical equivalence: `"caf\u{E9}"` equals
/// `"cafe\u{301}"` and `"\u{212A}"` (KELVIN SIGN) equals `"K"`, which would let two
/// different issuers, audiences, key IDs or member names pass for one.
@inlinable
package func sameCodeUnits(_ a: String, _ b: String) -> Bool {
    let count = a.utf8.count
    guard count == b.utf8.count else { return false }
    let contiguous = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
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
