/// HTTP header fields in order, with case-insensitive lookup.
public struct TransportHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)]

    /// No fields.
    public init() { fields = [] }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The value of the first field named `name` (case-insensitive).
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Appends a field, keeping existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: TransportHeaders, rhs: TransportHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
