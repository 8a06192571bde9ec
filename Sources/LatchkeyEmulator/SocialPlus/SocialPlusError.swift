/// A social.plus error: `{"status":"error","code":<number>,"message"}`.
///
/// Codes: 400000 bad request, 400100 unauthorized (ends the session), 400300
/// forbidden, 400312 global ban, 400400 not found, 429000 rate limited, 500000 server
/// error. Only 400100 and 400312 are documented; the others follow the same pattern.
struct SocialPlusError: Error, Sendable {
    var status: Int
    var code: Int
    var message: String

    static func badRequest(_ message: String) -> SocialPlusError { SocialPlusError(status: 400, code: 400_000, message: message) }
    static func unauthorized(_ message: String = "Unauthorized") -> SocialPlusError { SocialPlusError(status: 401, code: 400_100, message: message) }
    static let globalBan = SocialPlusError(status: 403, code: 400_312, message: "User is globally banned.")
    static let userNotFound = SocialPlusError(status: 404, code: 400_400, message: "User not found.")

    /// The usual code for a status (used by injected faults and unknown routes).
    static func defaultCode(for status: Int) -> Int {
        switch status {
        case 400: 400_000
        case 401: 400_100
        case 403: 400_300
        case 404: 400_400
        case 429: 429_000
        default: status >= 500 ? 500_000 : 400_000
        }
    }

    func response() -> EmulatorResponse {
        .json(["status": "error", "code": .number(Double(code)), "message": .string(message)], status: status)
    }
}
