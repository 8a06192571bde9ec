/// A JSON value as parsed from a token, with object members kept in document order.
///
/// Latchkey parses headers, claims, keys, configuration and its vault with its own
/// strict parser (duplicate member names, invalid UTF-8, control characters and
/// trailing data are errors), which is several times faster than Foundation's on the
/// small documents tokens carry.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is a number.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The object, if this is an object.
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }

    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// A JSON object: members in document order, names unique.
///
/// Names are compared by their UTF-8 bytes (as JOSE requires), never by Unicode
/// canonical equivalence: `"caf\u{E9}"` and `"cafe\u{301}"` are different members.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public var name: String
        /// The member's value.
        public var value: JSONValue
        /// A member named `name` with `value`.
        public init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The members in document order.
    public private(set) var members: [Member]

    /// An empty object.
    public init() { members = [] }

    @usableFromInline
    init(uniqueMembers: [Member]) { members = uniqueMembers }

    /// An object with these members in this order; a later member replaces an earlier
    /// one of the same name.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (name, value) in elements { self[name] = value }
    }

    /// Number of members.
    public var count: Int { members.count }

    /// The member names in document order.
    public var names: [String] { members.map(\.name) }

    /// Reads or replaces the member named `name`; assigning nil removes it.
    public subscript(name: String) -> JSONValue? {
        @inlinable
        get {
            // Only names of the same UTF-8 length are compared (the length is stored):
            // a lookup mostly passes members with other, often longer, heap-allocated names.
            let length = name.utf8.count
            for member in members where member.name.utf8.count == length && sameCodeUnitsOfEqualLength(member.name, name) { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { sameCodeUnits($0.name, name) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(name: name, value: newValue))
            }
        }
    }

    /// The members in document order.
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// Parses JSON text strictly: no duplicate members, no trailing data, valid UTF-8,
    /// nesting at most 64 deep.
    ///
    /// - Throws: ``JSONError`` saying what is wrong and at which byte.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    /// Parses UTF-8 JSON bytes with the same strict rules as ``parse(_:)``, without
    /// first making a `String` of them.
    ///
    /// - Throws: ``JSONError`` saying what is wrong and at which byte.
    public static func parse(bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONParser.parse(bytes)
    }
}
