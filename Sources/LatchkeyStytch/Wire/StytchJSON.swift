internal import Foundation
internal import LatchkeyJSON

// Members are read with LatchkeyJSON's readers (`nonEmptyString`, `object`, `array`…);
// what is Stytch's own is its timestamp format and the body encoding.

extension JSONObject {
    /// A member that is an RFC 3339 timestamp.
    func timestamp(_ name: String) -> Date? { nonEmptyString(name).flatMap(StytchTime.parse) }

    /// The body bytes of this object.
    var bodyData: Data { Data(JSONValue.object(self).jsonBytes) }
}

/// Stytch's timestamps: RFC 3339 in UTC, with or without fractional seconds.
enum StytchTime {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text)
    }
}
