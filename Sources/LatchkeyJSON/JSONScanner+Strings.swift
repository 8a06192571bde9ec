extension JSONScanner {
    // MARK: Strings

    /// A string value at `index` (its opening quote): escapes checked, UTF-8 validated.
    mutating func string() -> Bool {
        let start = index + 1
        if let (end, ascii) = plainString(from: start) {
            guard ascii || Self.isValidUTF8(base + start, count: end - start) else { return false }
            index = end + 1
            lastStringPlain = true
            return true
        }
        return escapedString(from: start)
    }

    /// A string holding escapes (or a control character, or no end): each escape is
    /// checked as the parser decodes it, and the raw bytes between escapes are valid
    /// UTF-8 on their own (an escape decodes to a complete scalar, so a sequence split
    /// by one is invalid either way).
    mutating func escapedString(from start: Int) -> Bool {
        index = start
        var runStart = start
        var ascii = true
        while index < count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                guard ascii || Self.isValidUTF8(base + runStart, count: index - runStart) else { return false }
                index += 1
                return true
            }
            if byte < 0x20 { return false }
            if byte >= 0x80 { ascii = false }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard ascii || Self.isValidUTF8(base + runStart, count: index - runStart) else { return false }
            ascii = true
            index += 1
            switch peek {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 1
            case UInt8(ascii: "u"):
                index += 1
                guard let scalar = hex4() else { return false }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard peek == UInt8(ascii: "\\"), index + 1 < count, base[index + 1] == UInt8(ascii: "u") else { return false }
                    index += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return false }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return false
                }
            default:
                return false
            }
            runStart = index
        }
        return false
    }

    mutating func hex4() -> UInt32? {
        guard index + 4 <= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// From `start` (after an opening quote): the offset of the closing quote and whether
    /// every byte is ASCII, or nil when an escape or a control character comes first or
    /// the string does not end. Eight bytes at a time.
    @inline(__always)
    func plainString(from start: Int) -> (end: Int, ascii: Bool)? {
        Self.plainString(in: UnsafeRawPointer(base), count: count, from: start)
    }

    /// The plain-string scan over `count` bytes at `base`, shared by the scanner and
    /// ``JSONParser``: eight bytes at a time, then the tail byte by byte.
    @inline(__always)
    static func plainString(in base: UnsafeRawPointer, count: Int, from start: Int) -> (end: Int, ascii: Bool)? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        var seen: UInt64 = 0
        while i + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            let flagged = special & highs
            if flagged != 0 {
                // The lowest flagged byte is exact (a borrow only reaches higher bytes):
                // the first quote, backslash or control character.
                let offset = flagged.trailingZeroBitCount >> 3
                seen |= word & ((1 << UInt64(offset << 3)) &- 1)
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(offset << 3))
                return byte == 0x22 ? (i + offset, seen & highs == 0) : nil
            }
            seen |= word
            i += 8
        }
        while i < count {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if byte == 0x22 { return (i, seen & highs == 0) }
            if byte == 0x5C || byte < 0x20 { return nil }
            seen |= UInt64(byte)
            i += 1
        }
        return nil
    }

    /// Whether `count` bytes are all ASCII: 16 bytes at a time (SSE2 or NEON), any
    /// byte's high bit gathered by OR.
    @inline(__always)
    package static func isASCII(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(bytes)
        var i = 0
        var high = SIMD16<UInt8>()
        while i + 16 <= count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            i += 16
        }
        var tail: UInt8 = 0
        while i < count {
            tail |= bytes[i]
            i += 1
        }
        return (high.max() | tail) < 0x80
    }

    /// Whether `count` bytes are well-formed UTF-8 (Unicode 15 Table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF) — the check `String(validating:)` makes.
    package static func isValidUTF8(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        var i = isASCII(bytes, count: count) ? count : 0
        while i < count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard i + length <= count else { return false }
            let second = bytes[i + 1]
            guard second >= low && second <= high else { return false }
            for offset in 2..<max(length, 2) where bytes[i + offset] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
