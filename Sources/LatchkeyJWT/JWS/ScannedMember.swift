import LatchkeyJSON

/// One member `JSONScanner` found, unpacked from its slot's word (``JSONScanner/Slots``)
/// here, in LatchkeyJWT: the scanner's own readers are not inlined across the module
/// boundary, and as calls they cost about 3 ns each, 11 per token.
struct ScannedMember {
    /// The value's bytes, quotes included for a string.
    let start: Int
    let end: Int
    /// A string without escapes: its text is ``text``, UTF-8 the scanner checked.
    let isPlainString: Bool

    /// The member a slot's word describes; nil when the member is absent (the word is 0).
    /// The word is `start << 32 | end`, with bit 63 (``JSONScanner/Slots/plainFlag``) set
    /// for a string without escapes; the bit is written out here because reading the
    /// scanner's constant is a call across the module boundary too, one per member.
    @inline(__always)
    init?(_ packed: UInt64) {
        guard packed != 0 else { return nil }
        let plainFlag: UInt64 = 1 << 63
        start = Int(truncatingIfNeeded: (packed & ~plainFlag) >> 32)
        end = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
        isPlainString = packed & plainFlag != 0
    }

    /// The value's bytes.
    var range: Range<Int> { start..<end }
    /// A string's bytes between its quotes.
    var text: Range<Int> { (start + 1)..<(end - 1) }
}
