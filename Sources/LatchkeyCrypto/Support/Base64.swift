internal import CLatchkeyBase64

/// Strict base64 and base64url (RFC 4648) without Foundation: the JWT hot path decodes
/// every segment with it, and PEM armour uses the standard alphabet. base64url's bulk
/// goes 32 characters at a time through `CLatchkeyBase64` (AVX2, where the CPU has it);
/// the loops here do the rest, and the standard alphabet.
package enum Base64 {
    package enum Alphabet: Sendable { case standard, url }

    private static let standardChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Four decoding tables per alphabet, one per position in a quantum, each entry
    /// already shifted into place (position 0: bits 18–23, … position 3: bits 0–5), so a
    /// quantum decodes with four loads and three ORs. A byte outside the alphabet maps
    /// to `invalid`, which no OR of valid entries can produce.
    private static let invalid: UInt32 = 0x0100_0000
    private static let urlTables = DecodeTables(urlChars)
    private static let standardTables = DecodeTables(standardChars)

    private struct DecodeTables: Sendable {
        /// 4 × 256 entries: position `p`'s table starts at `p * 256`.
        let entries: [UInt32]

        init(_ chars: [UInt8]) {
            var entries = [UInt32](repeating: Base64.invalid, count: 4 * 256)
            for (value, char) in chars.enumerated() {
                for position in 0..<4 {
                    entries[position * 256 + Int(char)] = UInt32(value) << (18 - 6 * position)
                }
            }
            self.entries = entries
        }
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
                    out[o] = chars[Int(v >> 18 & 63)]
                    out[o + 1] = chars[Int(v >> 12 & 63)]
                    out[o + 2] = chars[Int(v >> 6 & 63)]
                    out[o + 3] = chars[Int(v & 63)]
                    o += 4
                    i += 3
                }
                if rest == 1 {
                    let v = UInt32(input[i]) << 16
                    out[o] = chars[Int(v >> 18 & 63)]
                    out[o + 1] = chars[Int(v >> 12 & 63)]
                    o += 2
                    if pad {
                        out[o] = UInt8(ascii: "=")
                        out[o + 1] = UInt8(ascii: "=")
                        o += 2
                    }
                } else if rest == 2 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    out[o] = chars[Int(v >> 18 & 63)]
                    out[o + 1] = chars[Int(v >> 12 & 63)]
                    out[o + 2] = chars[Int(v >> 6 & 63)]
                    o += 3
                    if pad {
                        out[o] = UInt8(ascii: "=")
                        o += 1
                    }
                }
                return o
            }
        }
    }

    /// Decodes base64url without padding, rejecting padding, whitespace, foreign
    /// characters, an impossible length (4n+1) and non-zero trailing bits.
    /// Returns nil on any violation.
    package static func decodeURL(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let count = decodedCountURL(input.count) else { return nil }
        if count == 0 { return input.isEmpty ? [] : nil }
        var failed = false
        let result = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            initialized = decodeURL(input, into: UnsafeMutableRawBufferPointer(out)) ?? 0
            failed = initialized != count
        }
        return failed ? nil : result
    }

    package static func decodeURL(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decodeURL(UnsafeRawBufferPointer($0)) }
    }

    /// The number of bytes `count` base64url characters (no padding) decode to, or nil
    /// for an impossible length.
    @inline(__always)
    package static func decodedCountURL(_ count: Int) -> Int? {
        count % 4 == 1 ? nil : count / 4 * 3 + max(count % 4 - 1, 0)
    }

    /// Decodes base64url without padding into `output` (at least
    /// `decodedCountURL(input.count)` bytes), as strictly as ``decodeURL(_:)-(UnsafeRawBufferPointer)``.
    /// Returns the number of bytes written, or nil on any violation.
    package static func decodeURL(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let needed = decodedCountURL(input.count), output.count >= needed else { return nil }
        // Whole 32-character blocks with AVX2 (CLatchkeyBase64), the rest here.
        var consumed = 0, produced = 0
        if input.count >= 32, let base = input.baseAddress, let out = output.baseAddress {
            guard
                latchkey_base64url_decode_blocks(
                    base.assumingMemoryBound(to: UInt8.self), input.count,
                    out.assumingMemoryBound(to: UInt8.self), output.count,
                    &consumed, &produced) == 1
            else { return nil }
        }
        let rest = UnsafeRawBufferPointer(rebasing: input[consumed...])
        guard
            let written = urlTables.entries.withUnsafeBufferPointer({
                decode(rest, count: rest.count, tables: $0, into: UnsafeMutableRawBufferPointer(rebasing: output[produced...]))
            })
        else { return nil }
        return produced + written
    }

    /// Whether `input` is strict base64url without padding, checked without decoding it
    /// anywhere.
    package static func isValidURL(_ input: UnsafeRawBufferPointer) -> Bool {
        guard decodedCountURL(input.count) != nil, let base = input.baseAddress else { return input.isEmpty }
        var checked = 0
        if input.count >= 32 {
            guard latchkey_base64url_check_blocks(base.assumingMemoryBound(to: UInt8.self), input.count, &checked) == 1 else { return false }
        }
        return urlTables.entries.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            var i = checked
            var combined: UInt32 = 0
            let count = input.count
            while i + 4 <= count {
                combined |= quantum(base + i, tables: t)
                i += 4
            }
            guard combined & invalid == 0 else { return false }
            return tail(base + i, count - i, tables: t) != nil
        }
    }

    /// Decodes standard base64 with mandatory padding (as in PEM), strictly.
    package static func decodeStandard(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0), tables: standardTables, padded: true) }
    }

    private static func decode(_ input: UnsafeRawBufferPointer, tables: DecodeTables, padded: Bool) -> [UInt8]? {
        var count = input.count
        if padded {
            guard count % 4 == 0 else { return nil }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard let outCount = decodedCountURL(count) else { return nil }
        if outCount == 0 { return count == 0 ? [] : nil }
        return tables.entries.withUnsafeBufferPointer { tables in
            var failed = false
            let result = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
                if let written = decode(input, count: count, tables: tables, into: UnsafeMutableRawBufferPointer(out)) {
                    initialized = written
                } else {
                    failed = true
                    initialized = 0
                }
            }
            return failed ? nil : result
        }
    }

    /// The shared loop: `count` characters of `input` (padding already removed) into
    /// `output`, which has room for them.
    @inline(__always)
    private static func decode(
        _ input: UnsafeRawBufferPointer, count: Int, tables: UnsafeBufferPointer<UInt32>,
        into output: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard count > 0 else { return 0 }
        guard let base = input.baseAddress, let out = output.baseAddress, let t = tables.baseAddress else { return nil }
        var i = 0, o = 0
        var combined: UInt32 = 0
        // Eight characters at a time while 8 output bytes fit: six bytes written with one
        // 8-byte store (the two extra bytes are overwritten next, or by the tail).
        let outCount = output.count
        while i + 8 <= count && o + 8 <= outCount {
            let high = quantum(base + i, tables: t), low = quantum(base + i + 4, tables: t)
            combined |= high | low
            let bits = (UInt64(high) << 40 | UInt64(low) << 16).bigEndian
            out.storeBytes(of: bits, toByteOffset: o, as: UInt64.self)
            i += 8
            o += 6
        }
        while i + 4 <= count {
            let v = quantum(base + i, tables: t)
            combined |= v
            out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), toByteOffset: o, as: UInt8.self)
            out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), toByteOffset: o + 1, as: UInt8.self)
            out.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: o + 2, as: UInt8.self)
            i += 4
            o += 3
        }
        guard combined & invalid == 0, let last = tail(base + i, count - i, tables: t) else { return nil }
        for k in 0..<last.count {
            out.storeBytes(of: UInt8(truncatingIfNeeded: last.bits >> (16 - 8 * k)), toByteOffset: o + k, as: UInt8.self)
        }
        return o + last.count
    }

    /// Four characters at `p` as 24 bits, or with `invalid` set when one is outside the
    /// alphabet.
    @inline(__always)
    private static func quantum(_ p: UnsafeRawPointer, tables t: UnsafePointer<UInt32>) -> UInt32 {
        t[Int(p.load(as: UInt8.self))] | t[256 + Int(p.load(fromByteOffset: 1, as: UInt8.self))]
            | t[512 + Int(p.load(fromByteOffset: 2, as: UInt8.self))] | t[768 + Int(p.load(fromByteOffset: 3, as: UInt8.self))]
    }

    /// The final 0, 2 or 3 characters: their bits (as in a full quantum) and how many
    /// bytes they carry. Trailing bits must be zero, or two encodings would decode alike.
    @inline(__always)
    private static func tail(_ p: UnsafeRawPointer, _ rest: Int, tables t: UnsafePointer<UInt32>) -> (bits: UInt32, count: Int)? {
        switch rest {
        case 0:
            return (0, 0)
        case 2:
            let v = t[Int(p.load(as: UInt8.self))] | t[256 + Int(p.load(fromByteOffset: 1, as: UInt8.self))]
            guard v & invalid == 0, v & 0xFFFF == 0 else { return nil }
            return (v, 1)
        case 3:
            let v =
                t[Int(p.load(as: UInt8.self))] | t[256 + Int(p.load(fromByteOffset: 1, as: UInt8.self))]
                | t[512 + Int(p.load(fromByteOffset: 2, as: UInt8.self))]
            guard v & invalid == 0, v & 0xFF == 0 else { return nil }
            return (v, 2)
        default:
            return nil
        }
    }
}
