import Foundation
import LatchkeyJSON

/// An Auth0 Authentication API error: `{"error","error_description"}` plus, for some,
/// extra members (`mfa_token`) or headers (rate limits).
struct Auth0Error: Error, Sendable {
    var status: Int
    var error: String
    var description: String
    var extra: JSONObject = [:]
    var headers: [(name: String, value: String)] = []

    static func invalidRequest(_ description: String) -> Auth0Error {
        Auth0Error(status: 400, error: "invalid_request", description: description)
    }

    static func missing(_ field: String) -> Auth0Error {
        invalidRequest("Missing required parameter: \(field)")
    }

    static let invalidClient = Auth0Error(status: 401, error: "invalid_client", description: "Unknown client.")
    static let wrongCredentials = Auth0Error(status: 403, error: "invalid_grant", description: "Wrong email or password.")
    static let invalidRefreshToken = Auth0Error(status: 403, error: "invalid_grant", description: "Unknown or invalid refresh token.")
    static let invalidCode = Auth0Error(status: 403, error: "invalid_grant", description: "Invalid authorization code")
    static let invalidVerifier = Auth0Error(status: 403, error: "invalid_grant", description: "Failed to verify code verifier")
    static let invalidDeviceCode = Auth0Error(status: 403, error: "invalid_grant", description: "Invalid or expired device code.")
    static let blocked = Auth0Error(status: 401, error: "unauthorized", description: "user is blocked")
    static let pending = Auth0Error(status: 403, error: "authorization_pending", description: "User has yet to authorize device code.")
    static let slowDown = Auth0Error(status: 429, error: "slow_down", description: "You are polling faster than allowed. Try again in 5 seconds.")
    static let expiredToken = Auth0Error(status: 403, error: "expired_token", description: "The device code has expired.")
    static let accessDenied = Auth0Error(status: 403, error: "access_denied", description: "The user denied the device authorization.")
    static let deniedByAction = Auth0Error(status: 403, error: "access_denied", description: "Access denied by a post-login Action.")

    static func mfaRequired(token: String) -> Auth0Error {
        Auth0Error(
            status: 403, error: "mfa_required", description: "Multifactor authentication required",
            extra: ["mfa_token": .string(token), "mfa_requirements": .object(["challenge": [.object(["type": "otp"])]])])
    }

    /// The usual `error` for a status (used by injected faults).
    static func defaultError(for status: Int) -> String {
        switch status {
        case 400: "invalid_request"
        case 401: "invalid_client"
        case 403: "invalid_grant"
        case 404: "not_found"
        case 429: "too_many_requests"
        default: status >= 500 ? "server_error" : "invalid_request"
        }
    }

    /// Headers a 429 carries.
    static func rateLimitHeaders(now: Date) -> [(name: String, value: String)] {
        [
            ("x-ratelimit-limit", "10"), ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", String(Timestamp.wholeSeconds(now.addingTimeInterval(60)))),
        ]
    }

    /// The answer; `legacy` uses the older `{"code", "description"}` shape.
    func response(legacy: Bool = false) -> EmulatorResponse {
        var body: JSONObject =
            legacy
            ? ["code": .string(error), "description": .string(description)]
            : ["error": .string(error), "error_description": .string(description)]
        for member in extra { body[member.name] = member.value }
        return EmulatorResponse.json(body, status: status, headers: headers).noStore()
    }
}
