/// Strict base64 and base64url (RFC 4648) without Foundation: the JWT hot path decodes
/// every segment with it, and PEM armour uses the standard alphabet.
package enum Base64 {
    package enum Alphabet: Sendable { case standard, url }

    private static let standardChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let urlTable: [UInt8] = makeTable(urlChars)
    private static let standardTable: [UInt8] = makeTable(standardChars)

    private static func makeTable(_ chars: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in chars.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }

    /// Encodes without padding for `.url`, with padding for `.standard`.
    package static func encode(_ bytes: some Sequence<UInt8>, alphabet: Alphabet = .url) -> String {
        withContiguousBytes(bytes) { input in
            let chars = alphabet == .url ? urlChars : standardChars
            let pad = alphabet == .standard
            let full = input.count / 3, rest = input.count % 3
            let outCount = full * 4 + (rest == 0 ? 0 : (pad ? 4 : rest + 1))
            return String(unsafeUninitializedCapacity: outCount) { out in
                var o = 0, i = 0
                while i + 3 <= input.count {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = chars[Int(v >> 18 & 63)]; out[o + 1] = chars[Int(v >> 12 & 63)]
                    out[o + 2] = chars[Int(v >> 6 & 63)]; out[o + 3] = chars[Int(v & 63)]
                    o += 4; i += 3
                }
                if rest == 1 {
                    let v = UInt32(input[i]) << 16
                    out[o] = chars[Int(v >> 18 & 63)]; out[o + 1] = chars[Int(v >> 12 & 63)]; o += 2
                    if pad { out[o] = UInt8(ascii: "="); out[o + 1] = UInt8(ascii: "="); o += 2 }
                } else if rest == 2 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    out[o] = chars[Int(v >> 18 & 63)]; out[o + 1] = chars[Int(v >> 12 & 63)]
                    out[o + 2] = chars[Int(v >> 6 & 63)]; o += 3
                    if pad { out[o] = UInt8(ascii: "="); o += 1 }
                }
                return o
            }
        }
    }

    /// Decodes base64url without padding, rejecting padding, whitespace, foreign
    /// characters, an impossible length (4n+1) and non-zero trailing bits.
    /// Returns nil on any violation.
    @inline(__always)
    package static func decodeURL(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        decode(input, table: urlTable, padded: false)
    }

    package static func decodeURL(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decodeURL(UnsafeRawBufferPointer($0)) }
    }

    /// Decodes standard base64 with mandatory padding (as in PEM), strictly.
    package static func decodeStandard(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0), table: standardTable, padded: true) }
    }

    private static func decode(_ input: UnsafeRawBufferPointer, table: [UInt8], padded: Bool) -> [UInt8]? {
        var count = input.count
        if padded {
            guard count % 4 == 0 else { return nil }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        let rest = count % 4
        if rest == 1 { return nil }
        let outCount = count / 4 * 3 + (rest == 0 ? 0 : rest - 1)
        return table.withUnsafeBufferPointer { table in
            var failed = false
            let result = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
                var i = 0, o = 0
                while i + 4 <= count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    if (a | b | c | d) & 0xC0 != 0 { failed = true; break }
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                    i += 4; o += 3
                }
                if !failed && rest == 2 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    // Trailing bits must be zero: otherwise two encodings decode alike.
                    if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { failed = true } else {
                        out[o] = a << 2 | b >> 4; o += 1
                    }
                } else if !failed && rest == 3 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])], c = table[Int(input[i + 2])]
                    if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { failed = true } else {
                        out[o] = a << 2 | b >> 4; out[o + 1] = (b & 0x0F) << 4 | c >> 2; o += 2
                    }
                }
                initialized = failed ? 0 : o
            }
            return failed ? nil : result
        }
    }
}
