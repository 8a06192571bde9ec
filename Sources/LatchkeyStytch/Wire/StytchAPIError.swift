public import LatchkeyJSON

/// Stytch's error body, kept as ``/Latchkey/AuthError/underlying`` of the ``/Latchkey/AuthError``
/// an adapter throws: `status_code`, `request_id`, `error_type`, `error_message`,
/// `error_url` and `error_details` — or, for a body that is not JSON (a proxy's page,
/// "Captcha required"), only the HTTP status.
///
/// Stytch's messages describe the failure, never a credential; this type holds no token.
public struct StytchAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var httpStatus: Int
    /// `status_code` from the body, when it was a number.
    public var statusCode: Int?
    /// `request_id`, for Stytch support.
    public var requestID: String?
    /// `error_type` (`unauthorized_credentials`, `too_many_requests`, …); `nil` for a body that is not JSON.
    public var errorType: String?
    /// `error_message`.
    public var errorMessage: String?
    /// `error_url`.
    public var errorURL: String?
    /// `error_details`, when the body had it.
    public var errorDetails: JSONValue?
    /// The path the request went to (`sessions/authenticate`).
    public var endpoint: String

    /// Creates an error.
    public init(
        httpStatus: Int, statusCode: Int? = nil, requestID: String? = nil, errorType: String? = nil, errorMessage: String? = nil,
        errorURL: String? = nil, errorDetails: JSONValue? = nil, endpoint: String
    ) {
        self.httpStatus = httpStatus
        self.statusCode = statusCode
        self.requestID = requestID
        self.errorType = errorType
        self.errorMessage = errorMessage
        self.errorURL = errorURL
        self.errorDetails = errorDetails
        self.endpoint = endpoint
    }

    /// Whether the body was Stytch's JSON error (not a proxy's page).
    public var isStytchError: Bool { errorType != nil }

    public var description: String {
        var text = "Stytch \(endpoint): HTTP \(httpStatus)"
        if let errorType { text += " \(errorType)" } else { text += " (a body that is not JSON)" }
        if let errorMessage { text += ": \(errorMessage)" }
        if let requestID { text += " [\(requestID)]" }
        return text
    }
}
