/// A strict RFC 8259 parser over bytes.
///
/// Refuses what a lenient parser would repair: duplicate member names (RFC 7515 §4
/// lets JWS parsers reject them, and ambiguity is how confusion attacks start),
/// invalid UTF-8, unescaped control characters, lone surrogates, leading zeros,
/// trailing data, and nesting deeper than `maxDepth`.
struct JSONParser {
    struct Failure: Error, Equatable {
        let reason: String
        let offset: Int
    }

    static let maxDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Parses one complete JSON document.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.fail("unexpected data after the JSON value") }
        return value
    }

    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        do {
            return try bytes.withUnsafeBytes { buffer in try parse(buffer) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(reason: "\(error)", offset: 0)
        }
    }

    private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of JSON") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { throw fail("invalid literal") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSONObject {
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply") }
        index += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONObject(uniqueMembers: members)
        }
        // One allocation for the typical claims set instead of growing 1, 2, 4, 8, 16.
        members.reserveCapacity(16)
        var seen: Set<String>? = nil
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let name = try parseString()
            // Duplicate check: linear for the handful of members tokens carry, a set beyond.
            if members.count < 16 {
                for member in members where member.name == name { throw fail("duplicate member name \"\(name)\"") }
            } else {
                if seen == nil { seen = Set(members.map(\.name)) }
                guard seen!.insert(name).inserted else { throw fail("duplicate member name \"\(name)\"") }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONObject.Member(name: name, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return JSONObject(uniqueMembers: members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        let start = index
        var asciiOnly = true
        // Fast path: plain ASCII without escapes, one table lookup per byte.
        if let base = bytes.baseAddress {
            let count = bytes.count
            while index < count {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                guard byte >= 0x20, byte < 0x80, byte != 0x22, byte != 0x5C else { break }
                index += 1
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if asciiOnly { return Self.asciiString(slice) }
                guard let string = String(validating: slice, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character in a string") }
            if byte >= 0x80 { asciiOnly = false }
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string") }
        // Slow path: escapes.
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in a string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw fail("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone surrogate in a string")
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone surrogate in a string")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default: throw fail("invalid escape")
            }
        }
        throw fail("unterminated string")
    }

    /// Builds a String from bytes already known to be ASCII, skipping re-validation.
    @inline(__always)
    private static func asciiString(_ slice: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: slice.count) { buffer in
            _ = buffer.initialize(from: slice)
            return slice.count
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Failure) -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { throw fail("invalid number") }
        var integer: UInt64 = 0
        var digits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { throw fail("leading zero in a number") }
            digits = 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if digits < 19 { integer = integer &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fractionStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > fractionStart else { throw fail("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > exponentStart else { throw fail("invalid number") }
        }
        // Integers that fit exactly in a Double (all timestamps) skip text conversion.
        if isInteger && digits <= 15 {
            let value = Double(integer)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        return value
    }
}
