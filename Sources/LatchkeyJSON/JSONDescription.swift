extension JSONValue: CustomStringConvertible {
    /// How many characters a description shows before it is cut.
    static let descriptionLimit = 200

    /// The value as compact JSON on one line, cut after 200 characters with
    /// `…(N bytes)` giving the whole length: readable in logs and test failures, never
    /// a dump of the enum's internals and never a wall of text.
    public var description: String { Self.capped(jsonText) }

    static func capped(_ text: String) -> String {
        guard text.count > descriptionLimit else { return text }
        return String(text.prefix(descriptionLimit)) + "…(\(text.utf8.count) bytes)"
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as compact JSON on one line, cut as ``JSONValue/description`` is.
    public var description: String { JSONValue.capped(JSONValue.object(self).jsonText) }
}
