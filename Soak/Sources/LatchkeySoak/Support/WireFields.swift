internal import Foundation
internal import Latchkey
internal import LatchkeyJSON

/// Reads what the drivers need from requests and answers at the wire: JSON bodies,
/// form-encoded bodies, Basic and Bearer credentials.
enum WireFields {
    /// The body as a JSON object, if it is one.
    static func json(_ body: Data?) -> JSONValue? {
        guard let body, !body.isEmpty else { return nil }
        return try? JSONValue.parse(bytes: Array(body))
    }

    /// The answer's body as JSON when the status is 2xx.
    static func json(success response: TransportResponse?) -> JSONValue? {
        guard let response, (200..<300).contains(response.status) else { return nil }
        return json(response.body)
    }

    /// The strings at `keys` of a JSON object (skipping absent and empty ones).
    static func strings(_ value: JSONValue?, _ keys: [String]) -> [String] {
        keys.compactMap { value?[$0]?.stringValue }.filter { !$0.isEmpty }
    }

    /// A form-encoded body's fields (`application/x-www-form-urlencoded`).
    static func form(_ body: Data?) -> [String: String] {
        guard let body else { return [:] }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The token of an `Authorization: Bearer …` header.
    static func bearer(_ request: TransportRequest) -> String? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    /// The encoded pair and the secret half of an `Authorization: Basic …` header
    /// (`public:secret`), both secrets when the secret half is a session token.
    static func basic(_ request: TransportRequest) -> (encoded: String, user: String, secret: String)? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Basic ") else { return nil }
        let encoded = String(header.dropFirst(6))
        guard let data = Data(base64Encoded: encoded), let pair = String(data: data, encoding: .utf8),
            let colon = pair.firstIndex(of: ":")
        else { return nil }
        return (encoded, String(pair[..<colon]), String(pair[pair.index(after: colon)...]))
    }
}
