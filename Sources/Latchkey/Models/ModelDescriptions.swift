internal import Foundation

// One-line, readable descriptions of the session objects: identifiers, status and
// times — never the provider's raw JSON (which can be long, and is the app's to print).

extension Session: CustomStringConvertible {
    public var description: String {
        ModelText.line(
            "Session",
            [
                ("id", id), ("user", userID), ("expires", ModelText.time(expiresAt)),
                ("factors", authenticationFactors.isEmpty ? nil : String(authenticationFactors.count)),
                ("roles", roles.isEmpty ? nil : roles.joined(separator: ",")),
            ])
    }
}

extension User: CustomStringConvertible {
    public var description: String {
        ModelText.line("User", [("id", id), ("email", email), ("name", name), ("status", status)])
    }
}

extension MemberSession: CustomStringConvertible {
    public var description: String {
        ModelText.line(
            "MemberSession",
            [
                ("id", id), ("member", memberID), ("organization", organizationID),
                ("slug", organizationSlug), ("expires", ModelText.time(expiresAt)),
                ("roles", roles.isEmpty ? nil : roles.joined(separator: ",")),
            ])
    }
}

extension Member: CustomStringConvertible {
    public var description: String {
        ModelText.line("Member", [("id", id), ("organization", organizationID), ("email", email), ("name", name), ("status", status)])
    }
}

extension Organization: CustomStringConvertible {
    public var description: String {
        ModelText.line("Organization", [("id", id), ("name", name), ("slug", slug)])
    }
}

enum ModelText {
    static func line(_ type: String, _ fields: [(String, String?)]) -> String {
        let parts = fields.compactMap { name, value in value.map { "\(name): \(escape($0))" } }
        return "\(type)(\(parts.joined(separator: ", ")))"
    }

    static func time(_ date: Date?) -> String? {
        date.map { $0.formatted(.iso8601) }
    }

    /// Provider strings are printed on one line without control characters.
    private static func escape(_ text: String) -> String {
        let limited = text.count > 120 ? String(text.prefix(117)) + "…" : text
        guard limited.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return limited }
        return String(
            String.UnicodeScalarView(
                limited.unicodeScalars.flatMap { scalar -> [Unicode.Scalar] in
                    scalar.properties.generalCategory == .control ? Array(String(format: "\\u{%X}", scalar.value).unicodeScalars) : [scalar]
                }))
    }
}
