import LatchkeyJSON

/// A Stytch error: HTTP status, `error_type` and message. Stytch does not wrap errors in
/// `data`: `{"status_code","request_id","error_type","error_message","error_url","error_details"?}`.
struct StytchError: Error, Sendable {
    var status: Int
    var type: String
    var message: String
    /// `error_details`, sent only when set.
    var details: JSONObject?

    /// The session in Basic auth is missing, unknown, revoked or expired; or the public
    /// token is not the project's.
    static func unauthorized(_ message: String = "Unauthorized credentials.") -> StytchError {
        StytchError(status: 401, type: "unauthorized_credentials", message: message)
    }

    /// The session behind the token was ended on the project's side (revoked by the
    /// backend, its user banned or deleted): Stytch's documented 404 for
    /// `sessions/authenticate`.
    static let sessionNotFound = StytchError(status: 404, type: "session_not_found", message: "Session could not be found.")

    /// The SDK's `X-SDK-Client` names an app the project has not authorized.
    static let invalidMobileIdentifier = StytchError(
        status: 400, type: "invalid_mobile_identifier",
        message: "The mobile identifier (bundle ID or package name) is not one of the project's Authorized environments.")

    /// A magic link sent with a PKCE challenge, authenticated without the verifier that
    /// hashes to it. (The error type is the plausible form; unconfirmed.)
    static let pkceMismatch = StytchError(
        status: 400, type: "pkce_mismatch",
        message: "The PKCE code verifier does not match the code challenge the link or OAuth start was sent with.")

    static func badRequest(_ message: String) -> StytchError {
        StytchError(status: 400, type: "bad_request", message: message)
    }

    static func missing(_ field: String) -> StytchError {
        StytchError(status: 400, type: "bad_request", message: "\(field) is a required field.", details: ["field": .string(field)])
    }

    static let invalidDuration = StytchError(
        status: 400, type: "invalid_session_duration",
        message: "session_duration_minutes must be between 5 and 527040 (366 days).",
        details: ["field": "session_duration_minutes", "minimum": 5, "maximum": 527_040])
    static let otpNotFound = StytchError(status: 404, type: "otp_code_not_found", message: "The OTP code is invalid, expired or already used.")
    static let magicLinkNotFound = StytchError(
        status: 401, type: "unable_to_auth_magic_link",
        message: "The magic link could not be authenticated: it is invalid, expired or already used.")
    static let intermediateSessionNotFound = StytchError(
        status: 404, type: "intermediate_session_not_found",
        message: "The intermediate session is invalid, expired or already used.")
    static let totpNotFound = StytchError(status: 404, type: "totp_not_found", message: "The member has no TOTP registration.")
    static let totpCodeInvalid = StytchError(
        status: 401, type: "totp_code_already_authenticated_or_invalid",
        message: "The TOTP code is invalid or was already used.")
    static let recoveryCodeInvalid = StytchError(status: 401, type: "recovery_code_invalid", message: "The recovery code is invalid or already used.")
    static let oauthTokenNotFound = StytchError(
        status: 404, type: "oauth_token_not_found",
        message: "The OAuth token is invalid, expired or already used.")
    static let oauthAttemptNotFound = StytchError(status: 404, type: "oauth_attempt_not_found", message: "The OAuth attempt has expired.")
    static let organizationNotFound = StytchError(status: 404, type: "organization_not_found", message: "Organization could not be found.")

    /// The usual `error_type` for a status (used by injected faults).
    static func defaultType(for status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 401: "unauthorized_credentials"
        case 403: "forbidden"
        case 404: "not_found"
        case 408: "request_timeout"
        case 413: "request_too_large"
        case 429: "too_many_requests"
        case 503: "service_unavailable"
        default: status >= 500 ? "internal_server_error" : "bad_request"
        }
    }

    /// The error body and status (`error_details` only when there are details).
    func response(requestID: String) -> EmulatorResponse {
        var body: JSONObject = [
            "status_code": .number(Double(status)), "request_id": .string(requestID), "error_type": .string(type),
            "error_message": .string(message), "error_url": .string("https://stytch.com/docs/api/errors/\(status)"),
        ]
        if let details { body["error_details"] = .object(details) }
        return .json(body, status: status)
    }
}
