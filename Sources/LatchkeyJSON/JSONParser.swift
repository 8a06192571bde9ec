/// A strict RFC 8259 parser over bytes.
///
/// Refuses what a lenient parser would repair: duplicate member names (RFC 7515 §4
/// lets JWS parsers reject them, and ambiguity is how confusion attacks start),
/// invalid UTF-8, unescaped control characters, lone surrogates, leading zeros,
/// trailing data, and nesting deeper than `maxDepth`. Member names are compared by
/// their UTF-8 bytes, never by Unicode canonical equivalence: `"caf\u00e9"` and
/// `"cafe\u0301"` are two members.
///
/// `names` is the interning hook (see ``JSONNameInterning``): the JWT layer passes its
/// table of registered names; by default no name is interned.
package struct JSONParser {
    package static var maxDepth: Int { 64 }

    private let bytes: UnsafeRawBufferPointer
    /// Unmanaged and read through `_withUnsafeGuaranteedRef`: the caller's reference
    /// outlives the parse, and a strong reference in a mutating parser cost a retain and
    /// a release per member name (callgrind).
    private let names: Unmanaged<JSONNameInterning>?
    private var index = 0
    /// Whether to note where the top-level object's slotted names are.
    private let recordsSlots: Bool
    private var slots = JSONMemberSlots()

    private init(_ bytes: UnsafeRawBufferPointer, names: JSONNameInterning?, recordsSlots: Bool = false) {
        self.bytes = bytes
        self.names = names.map(Unmanaged.passUnretained)
        self.recordsSlots = recordsSlots
    }

    /// Parses one complete JSON document.
    package static func parse(_ bytes: UnsafeRawBufferPointer, names: JSONNameInterning? = nil) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes, names: names)
        return try parser.parseDocument()
    }

    /// Parses one complete JSON document.
    package static func parse(_ bytes: [UInt8], names: JSONNameInterning? = nil) throws(JSONError) -> JSONValue {
        var result: Result<JSONValue, JSONError> = .failure(JSONError(.syntax, "unexpected end of JSON", offset: 0))
        bytes.withUnsafeBytes { buffer in
            result = Result { () throws(JSONError) -> JSONValue in try parse(buffer, names: names) }
        }
        return try result.get()
    }

    /// Parses a document, noting where the top-level object's members whose names the
    /// strategy gives a slot are (a claims set's registered claims, for the JWT layer).
    package static func parseRecordingSlots(
        _ bytes: UnsafeRawBufferPointer, names: JSONNameInterning
    ) throws(JSONError) -> (JSONValue, JSONMemberSlots) {
        var parser = JSONParser(bytes, names: names, recordsSlots: true)
        let value = try parser.parseDocument()
        return (value, parser.slots)
    }

    private mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    private func fail(_ reason: String, _ code: JSONError.Code = .syntax) -> JSONError { JSONError(code, reason, offset: index) }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of JSON") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { throw fail("invalid literal") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONObject {
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply", .nestingTooDeep) }
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONObject(uniqueMembers: [])
        }
        var members: [JSONObject.Member] = []
        // One allocation for the typical claims set instead of growing 1, 2, 4, 8, 16.
        members.reserveCapacity(16)
        // Duplicate check: the first 16 names by key (see `Name`), a set beyond.
        var keys = InlineArray<16, UInt64>(repeating: 0)
        var exactKeys: UInt16 = 0
        var seen: Set<CodeUnitString>? = nil
        let recordsSlots = recordsSlots && depth == 1
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let name = try parseName()
            let position = members.count
            if position < 16 {
                for earlier in 0..<position where keys[earlier] == name.key {
                    let bothExact = name.exact && (exactKeys >> UInt16(earlier)) & 1 == 1
                    if bothExact || sameCodeUnits(members[earlier].name, name.string) { throw duplicate(name.string) }
                }
                keys[position] = name.key
                if name.exact { exactKeys |= 1 << UInt16(position) }
            } else {
                if seen == nil { seen = Set(members.lazy.map { CodeUnitString($0.name) }) }
                guard seen!.insert(CodeUnitString(name.string)).inserted else { throw duplicate(name.string) }
            }
            if recordsSlots, let slot = name.slot { slots.record(slot, at: position) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONObject.Member(name: name.string, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return JSONObject(uniqueMembers: members)
            }
            throw fail("expected ',' or '}'")
        }
    }

    private func duplicate(_ name: String) -> JSONError { fail("duplicate member name \"\(name)\"", .duplicateMember) }

    /// A member name, with what the duplicate check and the slots need.
    private struct Name {
        var string: String
        /// A function of the name's bytes: equal names have equal keys. For a name of up
        /// to 8 bytes read without escapes it is the bytes themselves (`exact`): equal
        /// keys then mean equal names. Otherwise equal keys need a string comparison.
        var key: UInt64
        var exact: Bool
        var slot: Int?
    }

    private mutating func parseName() throws(JSONError) -> Name {
        let start = index + 1
        if let (end, ascii) = scanPlainString(from: start), let base = bytes.baseAddress {
            index = end + 1
            let count = end - start
            let pointer = base + start
            let key = Self.nameKey(pointer, count: count)
            // Up to 8 bytes the key is the packed name, which the strategy matches on.
            if let names {
                if let known = names._withUnsafeGuaranteedRef({ $0.lookup(pointer, count: count, key: key) }) {
                    return Name(string: known.name, key: key, exact: count <= 8, slot: known.slot)
                }
            }
            let string = try makeString(UnsafeRawBufferPointer(start: pointer, count: count), ascii: ascii)
            return Name(string: string, key: key, exact: count <= 8, slot: nil)
        }
        // Escapes: the decoded name is what counts, for duplicates and for the claims
        // slots alike (`"\u0065xp"` is `exp`).
        let string = try parseStringCarefully(from: start)
        var utf8 = string
        let (key, slot) = utf8.withUTF8 { utf8 -> (UInt64, Int?) in
            let raw = UnsafeRawBufferPointer(utf8)
            guard let pointer = raw.baseAddress else { return (0, nil) }
            let key = Self.nameKey(pointer, count: raw.count)
            guard let names else { return (key, nil) }
            return (key, names._withUnsafeGuaranteedRef { $0.lookup(pointer, count: raw.count, key: key)?.slot })
        }
        return Name(string: string, key: key, exact: false, slot: slot)
    }

    /// See `Name.key`.
    @inline(__always)
    private static func nameKey(_ pointer: UnsafeRawPointer, count: Int) -> UInt64 { JSONNameKey.key(pointer, count: count) }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply", .nestingTooDeep) }
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
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(JSONError) -> String {
        let start = index + 1
        if let (end, ascii) = scanPlainString(from: start) {
            index = end + 1
            return try makeString(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), ascii: ascii)
        }
        return try parseStringCarefully(from: start)
    }

    /// The string for bytes without escapes or control characters.
    @inline(__always)
    private func makeString(_ slice: UnsafeRawBufferPointer, ascii: Bool) throws(JSONError) -> String {
        if ascii { return Self.asciiString(slice) }
        guard let string = String(validating: slice, as: UTF8.self) else { throw fail("invalid UTF-8 in a string", .invalidString) }
        return string
    }

    /// The common case, fast: from `start` (just after the opening quote), the offset of
    /// the closing quote and whether every byte is ASCII — or nil when the string holds
    /// an escape or a control character or does not end, which the careful path then
    /// handles (and reports). Eight bytes at a time: a word with no quote, backslash or
    /// byte below 0x20 is skipped whole.
    @inline(__always)
    private func scanPlainString(from start: Int) -> (end: Int, ascii: Bool)? {
        guard let base = bytes.baseAddress else { return nil }
        return JSONScanner.plainString(in: base, count: bytes.count, from: start)
    }

    /// Any string, from `start` (just after the opening quote): escapes decoded, every
    /// error reported at its offset.
    private mutating func parseStringCarefully(from start: Int) throws(JSONError) -> String {
        index = start
        var asciiOnly = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try makeString(slice, ascii: asciiOnly)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character in a string", .invalidString) }
            if byte >= 0x80 { asciiOnly = false }
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string", .invalidString) }
        // Slow path: escapes.
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in a string", .invalidString) }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in a string", .invalidString) }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw fail("unterminated string", .invalidString) }
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
                        throw fail("lone surrogate in a string", .invalidString)
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate in a string", .invalidString) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone surrogate in a string", .invalidString)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", .invalidString) }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default: throw fail("invalid escape", .invalidString)
            }
        }
        throw fail("unterminated string", .invalidString)
    }

    /// Builds a String from bytes already known to be ASCII. (`String(decoding:as:)`
    /// checks ASCII a word at a time and builds small strings in place: the cheapest
    /// public way, about half the instructions of `init(unsafeUninitializedCapacity:)`.)
    @inline(__always)
    private static func asciiString(_ slice: UnsafeRawBufferPointer) -> String {
        String(decoding: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    private mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape", .invalidString) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape", .invalidString)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONError) -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
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
        guard let value = Double(text), value.isFinite else { throw fail("number out of range", .numberOutOfRange) }
        return value
    }
}
