import Foundation
import LatchkeyJSON

/// One HTTP request as the emulator's routes see it: method, path, query, headers and the
/// whole body, already read.
struct EmulatorRequest: Sendable {
    /// `GET`, `POST`, ...
    let method: String
    /// The path without the query, percent-encoding as sent.
    let path: String
    /// The query's parameters (the last value wins when a name repeats).
    let query: [String: String]
    /// Header values by lower-cased name (repeated fields joined with ", ").
    let headers: [String: String]
    /// The body bytes.
    let body: [UInt8]

    init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A header's value by name, case-insensitively.
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The path's segments after the leading slash, percent-decoded (`/a/b%20c` → `["a", "b c"]`).
    var segments: [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            String(segment).removingPercentEncoding ?? String(segment)
        }
    }

    /// The media type of the body, lower-cased, without parameters.
    var mediaType: String? {
        header("content-type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The body as fields: a JSON object, or an `application/x-www-form-urlencoded` form
    /// (all values strings). An empty body is an empty object.
    func fields() throws(BodyError) -> JSONObject {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return JSONObject() }
        if mediaType == "application/x-www-form-urlencoded" {
            var object = JSONObject()
            for (name, value) in FormEncoding.decode(String(decoding: body, as: UTF8.self)) { object[name] = .string(value) }
            return object
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: body) } catch { throw .notJSON }
        guard case .object(let object) = value else { throw .notAnObject }
        return object
    }

    /// Why a body could not be read as fields.
    enum BodyError: Error {
        case notJSON, notAnObject

        var message: String {
            switch self {
            case .notJSON: "The request body is not valid JSON."
            case .notAnObject: "The request body must be a JSON object."
            }
        }
    }
}

/// `application/x-www-form-urlencoded` (query strings and form bodies).
enum FormEncoding {
    /// Decodes `a=1&b=two%20words` into pairs, `+` as space.
    static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first.map(unescape), !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// Encodes pairs as a query string.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
