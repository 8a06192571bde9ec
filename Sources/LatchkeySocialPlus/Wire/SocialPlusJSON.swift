internal import Foundation
internal import LatchkeyJWT

internal import LatchkeyJSON
// The adapter's only contact with the JSON library: parsing answers, building bodies,
// and typed reads that never trap on what a server sends. When the JSON types move to
// their own module, this import (and the `public import` in the files naming
// `JSONObject` in public API) is the switch.

/// Reads and writes of the wire format's JSON.
enum SocialPlusJSON {
    /// The body of a JSON request.
    static func body(_ object: JSONObject) -> Data {
        Data(JSONValue.object(object).jsonBytes)
    }

    /// The answer as a JSON object, or `nil` when it is not one (a proxy's page, a cut body).
    static func object(_ body: Data) -> JSONObject? {
        guard !body.isEmpty, let value = try? JSONValue.parse(bytes: Array(body)) else { return nil }
        return value.objectValue
    }
}

extension JSONObject {
    /// The string member `name`, or `nil` when absent or of another type.
    func text(_ name: String) -> String? { self[name]?.stringValue }

    /// The boolean member `name`; absent, `null` or of another type reads as `false`.
    func flag(_ name: String) -> Bool { self[name]?.boolValue ?? false }

    /// The error `code` as text: a whole number (`400100`) or a string; `nil` otherwise.
    /// Never traps on a huge or fractional number.
    func errorCode(_ name: String) -> String? {
        switch self[name] {
        case .number(let value)?: Int(exactly: value).map(String.init)
        case .string(let value)? where !value.isEmpty: value
        default: nil
        }
    }

    /// The member `name` as an ISO 8601 time, with or without fractional seconds.
    func isoDate(_ name: String) -> Date? {
        guard let text = text(name) else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
