/// Converts between JWS's raw r || s and the DER `ECDSA-Sig-Value` OpenSSL speaks,
/// without allocating OpenSSL objects.
enum ECDSASignature {
    /// Encodes raw r || s (each `size` bytes) as DER. Returns nil when the length is wrong.
    static func der(fromRaw raw: UnsafeRawBufferPointer, coordinateSize size: Int) -> [UInt8]? {
        guard raw.count == 2 * size else { return nil }
        let r = integer(UnsafeRawBufferPointer(rebasing: raw[0..<size]))
        let s = integer(UnsafeRawBufferPointer(rebasing: raw[size..<(2 * size)]))
        let body = r.count + s.count
        var out: [UInt8] = [0x30]
        out.reserveCapacity(body + 4)
        appendLength(body, to: &out)
        out += r
        out += s
        return out
    }

    /// Decodes DER into raw r || s of exactly `size` bytes each.
    static func raw(fromDER der: [UInt8], coordinateSize size: Int) -> [UInt8]? {
        var index = 0
        guard der.count > 2, der[0] == 0x30 else { return nil }
        index = 1
        guard let (seqLength, afterLength) = readLength(der, at: index), afterLength + seqLength == der.count else { return nil }
        index = afterLength
        var out: [UInt8] = []
        out.reserveCapacity(2 * size)
        for _ in 0..<2 {
            guard index < der.count, der[index] == 0x02 else { return nil }
            guard let (length, start) = readLength(der, at: index + 1), start + length <= der.count, length > 0 else { return nil }
            var value = der[start..<(start + length)]
            while value.count > 1 && value.first == 0 { value = value.dropFirst() }
            guard value.count <= size else { return nil }
            out += [UInt8](repeating: 0, count: size - value.count)
            out += value
            index = start + length
        }
        return index == der.count ? out : nil
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var start = 0
        while start < bytes.count - 1 && bytes[start] == 0 { start += 1 }
        var content = Array(bytes[start...])
        if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        var out: [UInt8] = [0x02]
        appendLength(content.count, to: &out)
        return out + content
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            out.append(0x81)
            out.append(UInt8(length))
        }
    }

    private static func readLength(_ der: [UInt8], at index: Int) -> (Int, Int)? {
        guard index < der.count else { return nil }
        let first = der[index]
        if first < 0x80 { return (Int(first), index + 1) }
        guard first == 0x81, index + 1 < der.count, der[index + 1] >= 0x80 else { return nil }
        return (Int(der[index + 1]), index + 2)
    }
}
