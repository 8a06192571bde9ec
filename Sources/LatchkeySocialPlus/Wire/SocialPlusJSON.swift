internal import Foundation
internal import LatchkeyJSON

// Members are read with LatchkeyJSON's readers (`string`, `bool`, `stringOrInteger`…);
// what is social.plus's own is its time format and the body encoding.

/// Writes of the wire format's JSON.
enum SocialPlusJSON {
    /// The body of a JSON request.
    static func body(_ object: JSONObject) -> Data {
        Data(JSONValue.object(object).jsonBytes)
    }
}

extension JSONObject {
    /// The member `name` as an ISO 8601 time, with or without fractional seconds.
    func isoDate(_ name: String) -> Date? {
        guard let text = string(name) else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
