internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT
internal import Logging

/// Sends the SDK API's requests exactly as providers.md says — `POST <root>sdk/v1/<path>`,
/// JSON body, `Authorization: Basic base64(public_token:session_token)` (the public token
/// twice without a session), `X-SDK-Client` — unwraps `data`, and turns every failure
/// into an ``/Latchkey/AuthError`` classified by the endpoint it came from.
struct StytchAPIClient: Sendable {
    let settings: StytchConfiguration
    let transport: any HTTPTransport
    let clock: any SessionClock
    let logger: Logger
    let sdkClientHeader: String

    init(settings: StytchConfiguration, transport: any HTTPTransport, clock: any SessionClock, logger: Logger) {
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.logger = logger
        sdkClientHeader = StytchSDKClientHeader.value(appIdentifier: settings.appIdentifier)
    }

    /// The unrecoverable `error_type`s: with a 401 from a session endpoint, the session is
    /// gone; so it is with `session_not_found` as a 404, the status Stytch documents for it.
    static let unrecoverableTypes: Set<String> = [
        "unauthorized_credentials", "user_unauthenticated", "invalid_secret_authentication",
        "session_not_found",
    ]

    /// Posts `body` to `path` and returns the `data` object of the answer.
    ///
    /// - Throws: ``/Latchkey/AuthError`` only: see ``classify(status:body:path:retryAfter:)``.
    func post(_ path: StytchPath, _ body: JSONObject, sessionToken: String?) async throws(AuthError) -> JSONObject {
        var request = TransportRequest(
            method: "POST", url: settings.sdkBaseURL.appending(path: path.rawValue), body: body.bodyData,
            operation: "stytch \(path.rawValue)")
        request.headers["Content-Type"] = "application/json"
        request.headers["Accept"] = "application/json"
        let secret = sessionToken.flatMap { $0.isEmpty ? nil : $0 } ?? settings.publicToken
        request.headers["Authorization"] = "Basic " + Data("\(settings.publicToken):\(secret)".utf8).base64EncodedString()
        request.headers["X-SDK-Client"] = sdkClientHeader
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch is CancellationError {
            throw AuthError(.cancelled, "the Stytch request \(path.rawValue) was cancelled")
        } catch let error as TransportError {
            logger.notice("Stytch request got no response", metadata: ["endpoint": "\(path.rawValue)", "error": "\(error.code)"])
            throw AuthError(.transient, "no response from Stytch (\(path.rawValue)): \(error.code)", underlying: error)
        } catch {
            throw AuthError(.transient, "the Stytch request \(path.rawValue) failed: \(type(of: error))", underlying: error)
        }
        logger.debug("Stytch answered", metadata: ["endpoint": "\(path.rawValue)", "status": "\(response.status)"])
        guard (200..<300).contains(response.status) else {
            throw Self.classify(status: response.status, body: response.body, path: path, retryAfter: response.retryAfter)
        }
        guard let object = JSONObject.parsing(response.body), let data = object.object("data") else {
            throw Self.malformed(path, "the answer is not a JSON object with \"data\"", status: response.status)
        }
        return data
    }

    /// What a failed answer means, by endpoint:
    /// - `invalid_mobile_identifier`: ``/Latchkey/AuthError/Code/configuration``, saying where to
    ///   register the app identifier;
    /// - 429: ``/Latchkey/AuthError/Code/rateLimited`` (with `Retry-After` when sent);
    /// - 5xx, and a body that is not JSON: ``/Latchkey/AuthError/Code/transient``;
    /// - a 401 whose `error_type` is one of the four unrecoverable ones, or a 404
    ///   `session_not_found`, answered to `sessions/authenticate` or `sessions/revoke`
    ///   (B2B alike): ``/Latchkey/AuthError/Code/unrecoverable`` — the only answers that clear a session;
    /// - anything else from a session endpoint: ``/Latchkey/AuthError/Code/transient`` (kept);
    /// - from a login or MFA endpoint: `400` is ``/Latchkey/AuthError/Code/invalidArgument``, other
    ///   4xx (wrong password, used code) ``/Latchkey/AuthError/Code/unrecoverable`` for the login.
    static func classify(status: Int, body: Data, path: StytchPath, retryAfter: Duration?) -> AuthError {
        let decoded = decodeError(status: status, body: body, path: path)
        let message =
            decoded.errorMessage
            ?? (decoded.isStytchError
                ? "Stytch refused \(path.rawValue)"
                : "Stytch answered \(path.rawValue) with HTTP \(status) and a body that is not JSON")
        var error: AuthError
        if decoded.errorType == "invalid_mobile_identifier" {
            // Refused for every request until the dashboard or the setting changes: never
            // a verdict on a session, and no retry helps.
            error = AuthError(
                .configuration, "\(message) (the app identifier is not authorized for this Stytch project: \(StytchConfiguration.appIdentifierHelp))",
                providerCode: decoded.errorType, httpStatus: status)
        } else if status == 429 {
            error = AuthError.rateLimited(retryAfter: retryAfter, message, providerCode: decoded.errorType, httpStatus: status)
        } else if status >= 500 || !decoded.isStytchError {
            error = AuthError(.transient, message, providerCode: decoded.errorType, httpStatus: status)
        } else if path.isSessionEndpoint {
            let ends = Self.endsSession(status: status, errorType: decoded.errorType)
            error = AuthError(ends ? .unrecoverable : .transient, message, providerCode: decoded.errorType, httpStatus: status)
        } else {
            error = AuthError(status == 400 ? .invalidArgument : .unrecoverable, message, providerCode: decoded.errorType, httpStatus: status)
        }
        error.underlying = decoded
        error.endpoint = path.rawValue
        return error
    }

    /// Whether a session endpoint's refusal ends the session: a 401 with an unrecoverable
    /// type, or `session_not_found` as the 404 Stytch documents (the Android, KMP and web
    /// SDKs clear on the type alone; a 401-only rule kept a dead session forever).
    static func endsSession(status: Int, errorType: String?) -> Bool {
        guard let errorType else { return false }
        if status == 401 { return unrecoverableTypes.contains(errorType) }
        return status == 404 && errorType == "session_not_found"
    }

    /// The error body, or only the status when the body is not Stytch's JSON.
    static func decodeError(status: Int, body: Data, path: StytchPath) -> StytchAPIError {
        guard let object = JSONObject.parsing(body), let type = object.nonEmptyString("error_type") else {
            return StytchAPIError(httpStatus: status, endpoint: path.rawValue)
        }
        let details = object["error_details"].flatMap { $0 == .null ? nil : $0 }
        return StytchAPIError(
            httpStatus: status, statusCode: object.integer("status_code"), requestID: object.nonEmptyString("request_id"),
            errorType: type, errorMessage: object.nonEmptyString("error_message"), errorURL: object.nonEmptyString("error_url"),
            errorDetails: details, endpoint: path.rawValue)
    }

    /// An answer that is not what Stytch sends: transient (never a reason to sign out).
    static func malformed(_ path: StytchPath, _ what: String, status: Int? = nil) -> AuthError {
        AuthError(.transient, "malformed answer from Stytch \(path.rawValue): \(what)", httpStatus: status)
    }
}

/// The SDK API paths the adapters call (relative to `<root>sdk/v1/`).
struct StytchPath: Sendable, Hashable {
    let rawValue: String
    let isSessionEndpoint: Bool

    private init(_ rawValue: String, session: Bool = false) {
        self.rawValue = rawValue
        isSessionEndpoint = session
    }

    static let sessionsAuthenticate = StytchPath("sessions/authenticate", session: true)
    static let sessionsRevoke = StytchPath("sessions/revoke", session: true)
    static let passwordsAuthenticate = StytchPath("passwords/authenticate")
    static let otpsAuthenticate = StytchPath("otps/authenticate")
    static let magicLinksAuthenticate = StytchPath("magic_links/authenticate")
    static let magicLinksEmailLoginOrCreate = StytchPath("magic_links/email/login_or_create")
    static let otpsSMSLoginOrCreate = StytchPath("otps/sms/login_or_create")
    static let otpsWhatsAppLoginOrCreate = StytchPath("otps/whatsapp/login_or_create")
    static let otpsEmailLoginOrCreate = StytchPath("otps/email/login_or_create")
    static let b2bMagicLinksDiscoverySend = StytchPath("b2b/magic_links/email/discovery/send")
    static let b2bMagicLinksDiscoveryAuthenticate = StytchPath("b2b/magic_links/discovery/authenticate")
    static let b2bMagicLinksEmailLoginOrSignup = StytchPath("b2b/magic_links/email/login_or_signup")
    static let b2bSessionsAuthenticate = StytchPath("b2b/sessions/authenticate", session: true)
    static let b2bSessionsRevoke = StytchPath("b2b/sessions/revoke", session: true)
    static let b2bPasswordsAuthenticate = StytchPath("b2b/passwords/authenticate")
    static let b2bMagicLinksAuthenticate = StytchPath("b2b/magic_links/authenticate")
    static let b2bSMSSend = StytchPath("b2b/otps/sms/send")
    static let b2bSMSAuthenticate = StytchPath("b2b/otps/sms/authenticate")
    static let b2bTOTPAuthenticate = StytchPath("b2b/totp/authenticate")
    static let b2bRecoveryCodesRecover = StytchPath("b2b/recovery_codes/recover")
    static let b2bDiscoveryOrganizations = StytchPath("b2b/discovery/organizations")
    static let b2bDiscoveryExchange = StytchPath("b2b/discovery/intermediate_sessions/exchange")
    static let oauthAuthenticate = StytchPath("oauth/authenticate")
    static let b2bOAuthAuthenticate = StytchPath("b2b/oauth/authenticate")
    /// The session JWKS (outside `sdk/v1/`; only for error messages).
    static let jwks = StytchPath("jwks")
}
