/// Typed reads of an object's members: the one set every module uses, so a name means one
/// thing everywhere. None of them traps on what a server sends; each answers `nil` for
/// a member that is absent, `null` or of another type.
///
/// A reader takes one JSON type only. Where a provider sends a value as either a string
/// or a number (`expires_in`, an error `code`, a form field), a separately named reader
/// says so (``numberOrNumericString(_:)``, ``integerOrNumericString(_:)``,
/// ``stringOrInteger(_:)``).
extension JSONObject {
    /// The largest magnitude a JSON number may have to read as an integer: 2⁵³, below which
    /// every whole number is exact in a `Double` (the I-JSON interoperability range).
    public static let largestExactInteger: Double = 9_007_199_254_740_992

    /// Whether the member is there and not `null`: what a strict reader checks before it
    /// calls a member of another type an error.
    public func isPresent(_ name: String) -> Bool {
        switch self[name] {
        case nil, .null?: false
        default: true
        }
    }

    /// The member when it is a JSON string (the empty string included).
    public func string(_ name: String) -> String? {
        self[name]?.stringValue
    }

    /// The member when it is a JSON string with at least one character: for identifiers
    /// and tokens, where an empty string means nothing was sent.
    public func nonEmptyString(_ name: String) -> String? {
        guard case .string(let value)? = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// The member when it is a finite JSON number.
    public func number(_ name: String) -> Double? {
        guard case .number(let value)? = self[name], value.isFinite else { return nil }
        return value
    }

    /// The member when it is a whole JSON number within ±``largestExactInteger``.
    public func integer(_ name: String) -> Int? {
        guard case .number(let value)? = self[name] else { return nil }
        return Self.exactInteger(value)
    }

    /// The member when it is a JSON boolean.
    public func bool(_ name: String) -> Bool? {
        self[name]?.boolValue
    }

    /// The member when it is a JSON object.
    public func object(_ name: String) -> JSONObject? {
        self[name]?.objectValue
    }

    /// The member when it is a JSON array.
    public func array(_ name: String) -> [JSONValue]? {
        self[name]?.arrayValue
    }

    /// A number that may arrive as a JSON number or as a string holding one (`"3600"`,
    /// spaces around it ignored), as some providers send `expires_in`; finite only.
    public func numberOrNumericString(_ name: String) -> Double? {
        switch self[name] {
        case .number(let value)? where value.isFinite:
            return value
        case .string(let text)?:
            guard let value = Double(text.trimmingSpaces), value.isFinite else { return nil }
            return value
        default:
            return nil
        }
    }

    /// A whole number that may arrive as a JSON number (as ``integer(_:)``) or as a string
    /// of decimal digits, as form fields carry every number.
    public func integerOrNumericString(_ name: String) -> Int? {
        switch self[name] {
        case .number(let value)?: Self.exactInteger(value)
        case .string(let text)?: Int(text)
        default: nil
        }
    }

    /// A code that may arrive as a non-empty JSON string or a whole JSON number, as text
    /// (`400100` and `"400100"` read alike).
    public func stringOrInteger(_ name: String) -> String? {
        switch self[name] {
        case .number(let value)?: Self.exactInteger(value).map(String.init)
        case .string(let value)? where !value.isEmpty: value
        default: nil
        }
    }

    /// Parses `bytes` as a JSON object (strictly, as ``JSONValue/parse(bytes:)``); `nil`
    /// when they are not one: an empty body, a proxy's HTML page, a cut answer.
    public static func parsing(_ bytes: some Sequence<UInt8>) -> JSONObject? {
        guard let value = try? JSONValue.parse(bytes: Array(bytes)) else { return nil }
        return value.objectValue
    }

    private static func exactInteger(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) <= largestExactInteger else { return nil }
        return Int(exactly: value)
    }
}

extension String {
    /// Without the leading and trailing spaces and tabs (no Foundation needed).
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
