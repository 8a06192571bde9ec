import LatchkeyJSON

/// A response before it becomes Hummingbird's: status, headers and body bytes.
struct EmulatorResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body (members in their order).
    static func json(_ value: JSONValue, status: Int = 200, headers: [(name: String, value: String)] = []) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers, body: value.jsonBytes)
    }

    /// A JSON object body.
    static func json(_ object: JSONObject, status: Int = 200, headers: [(name: String, value: String)] = []) -> EmulatorResponse {
        json(.object(object), status: status, headers: headers)
    }

    /// A plain-text body.
    static func text(_ text: String, status: Int = 200) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// A redirect to `location`.
    static func redirect(_ location: String) -> EmulatorResponse {
        EmulatorResponse(status: 302, headers: [("Location", location), ("Cache-Control", "no-store")])
    }

    /// The response with `Cache-Control: no-store` (token responses, RFC 6749 §5.1).
    func noStore() -> EmulatorResponse {
        var copy = self
        copy.headers.append(("Cache-Control", "no-store"))
        return copy
    }
}
