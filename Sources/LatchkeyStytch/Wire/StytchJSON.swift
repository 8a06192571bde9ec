internal import Foundation
internal import LatchkeyJWT
internal import LatchkeyJSON

// The module's JSON access: reading answers and writing bodies goes through these
// helpers, so the switch to the `LatchkeyJSON` module touches this file and a few imports.

extension JSONObject {
    /// A member that is a non-empty string.
    func text(_ name: String) -> String? {
        guard case .string(let value)? = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// A member that is an object.
    func object(_ name: String) -> JSONObject? { self[name]?.objectValue }

    /// A member that is an RFC 3339 timestamp.
    func timestamp(_ name: String) -> Date? { text(name).flatMap(StytchTime.parse) }

    /// A member that is an array (empty when absent or of another type).
    func list(_ name: String) -> [JSONValue] { self[name]?.arrayValue ?? [] }

    /// A member that is an array of strings (other elements skipped).
    func strings(_ name: String) -> [String] { list(name).compactMap(\.stringValue) }

    /// A member that is a whole number representable as `Int`; never traps.
    func integer(_ name: String) -> Int? {
        guard case .number(let number)? = self[name], number.isFinite else { return nil }
        return Int(exactly: number)
    }

    /// The body bytes of this object.
    var bodyData: Data { Data(JSONValue.object(self).jsonBytes) }
}

enum StytchJSON {
    /// Parses a body as a JSON object, or `nil` when it is not one.
    static func object(_ body: Data) -> JSONObject? {
        guard !body.isEmpty, let value = try? JSONValue.parse(bytes: Array(body)) else { return nil }
        return value.objectValue
    }
}

/// Stytch's timestamps: RFC 3339 in UTC, with or without fractional seconds.
enum StytchTime {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text)
    }
}
