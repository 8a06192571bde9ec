#if canImport(Glibc)
import Glibc
#endif

/// Reading one value whose bytes ``JSONScanner`` accepted.
package enum JSONScannedValue {
    /// A string without escapes or an integer of up to 15 digits (what a token's
    /// registered claims and header members nearly always are) is read directly,
    /// anything else by the parser. `bytes` must be a value the scanner accepted (its
    /// UTF-8 is then valid); nil only if it is not. (A string the scanner found without
    /// escapes its callers read from ``JSONScanner/Slots/packed`` themselves.)
    @inline(__always)
    package static func read(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        guard let base = bytes.baseAddress, bytes.count >= 1 else { return nil }
        let count = bytes.count
        let first = base.load(as: UInt8.self)
        if first == UInt8(ascii: "\""), count >= 2, memchr(base, 0x5C, count) == nil {
            return .string(String(decoding: UnsafeRawBufferPointer(start: base + 1, count: count - 2), as: UTF8.self))
        }
        if count <= 15 {
            var integer: UInt64 = 0
            var offset = 0
            while offset < count {
                let digit = base.load(fromByteOffset: offset, as: UInt8.self) &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                integer = integer &* 10 &+ UInt64(digit)
                offset += 1
            }
            if offset == count { return .number(Double(integer)) }
        }
        return try? JSONParser.parse(bytes)
    }
}
