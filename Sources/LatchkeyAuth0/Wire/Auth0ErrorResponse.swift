public import Foundation
public import Latchkey
internal import LatchkeyJSON

/// An error answer of Auth0's Authentication API, in either of its shapes:
/// `{"error", "error_description"}` or the legacy `{"code", "description"}`.
public struct Auth0ErrorResponse: Error, Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// `error` (or legacy `code`); `nil` when the body was not an Auth0 error.
    public var code: String?
    /// `error_description` (or legacy `description`), when given. Auth0 writes these; they carry no secret.
    public var message: String?
    /// `mfa_token`, with `mfa_required`. A secret.
    var mfaToken: String?
    /// `mfa_requirements`, with `mfa_required`.
    var mfaRequirements: JSONValue?
    /// `x-ratelimit-reset` (Unix epoch seconds), when the answer carried it: an instant on
    /// Auth0's clock, which can be minutes off this device's; the wait it means is in
    /// ``/Latchkey/AuthError/retryAfter``.
    public var rateLimitReset: Date?
    /// The wait the answer asked for (`Retry-After`, else `x-ratelimit-reset` against the
    /// answer's own `Date`: ``/Latchkey/TransportResponse/retryAfter``), to start at receipt.
    var retryAfter: Duration?

    /// Reads an error answer: its JSON body, else the `Bearer` challenge of its
    /// `WWW-Authenticate` header (Auth0's `/userinfo` answers a refused token with a
    /// plain-text body and the reason there). Neither: only the status.
    init(_ response: TransportResponse) {
        status = response.status
        let object = JSONObject.parsing(response.body)
        // Each WWW-Authenticate field may hold other schemes' challenges (DPoP): the Bearer one counts.
        let challenge = response.headers.lazy.filter { $0.name.lowercased() == "www-authenticate" }
            .compactMap { BearerChallenge(header: $0.value) }.first
        code = object?.nonEmptyString("error") ?? object?.nonEmptyString("code") ?? challenge?.error
        message = object?.nonEmptyString("error_description") ?? object?.nonEmptyString("description") ?? challenge?.errorDescription
        mfaToken = object?.nonEmptyString("mfa_token")
        mfaRequirements = object?["mfa_requirements"]
        rateLimitReset = response.rateLimitReset
        retryAfter = response.retryAfter
    }

    /// What the endpoint was asked, which decides what an error means.
    enum Call: String, Sendable {
        case login = "login"
        case refresh = "renewal"
        case userInfo = "session check"
        case revoke = "revocation"
        case deviceCode = "device authorization"
        case devicePoll = "device login"

        /// The path the call goes to, for telling a user which endpoint answered.
        var endpoint: String {
            switch self {
            case .login, .refresh, .devicePoll: "POST /oauth/token"
            case .userInfo: "GET /userinfo"
            case .revoke: "POST /oauth/revoke"
            case .deviceCode: "POST /oauth/device/code"
            }
        }
    }

    /// Which call was refused, once classified.
    var call: Call?

    /// The classified error the core acts on; its ``/Latchkey/AuthError/underlying`` is this answer.
    func classified(_ call: Call, now: Date) -> AuthError {
        var answer = self
        answer.call = call
        var error = answer.classification(now: now)
        error.underlying = answer
        error.endpoint = call.endpoint
        return error
    }

    private func classification(now: Date) -> AuthError {
        let call = self.call ?? .login
        let text = "Auth0 refused the \(call.rawValue): \(message ?? code ?? "HTTP \(status)")"
        if status == 429 {
            return AuthError.rateLimited(retryAfter: retryAfter, text, providerCode: code, httpStatus: status)
        }
        if status >= 500 || code == nil {
            return AuthError(
                .transient, status >= 500 ? text : "Auth0 answered HTTP \(status) to the \(call.rawValue) without an error body",
                providerCode: code, httpStatus: status)
        }
        if code == "mfa_required" {
            let action = UserAction(
                kind: "mfa", continuationToken: mfaToken, requirements: mfaRequirements,
                expiresAt: now.addingTimeInterval(Auth0Provider.mfaTokenLifetime))
            return AuthError.needsUserAction(
                action, "Auth0 asks for multi-factor authentication: \(message ?? "mfa_required")",
                providerCode: code, httpStatus: status)
        }
        switch call {
        case .userInfo:
            if status == 401 { return AuthError(.renewAndRecheck, text, providerCode: code, httpStatus: status) }
            return AuthError(.transient, text, providerCode: code, httpStatus: status)
        case .refresh, .revoke:
            if code == "invalid_grant" { return AuthError(.unrecoverable, text, providerCode: code, httpStatus: status) }
            if code == "unauthorized", status == 401 || status == 403 {
                return AuthError.terminated(Auth0Provider.blocked, text, providerCode: code, httpStatus: status)
            }
            if code == "invalid_client" || code == "unauthorized_client" {
                return AuthError(.configuration, text, providerCode: code, httpStatus: status)
            }
            if code == "access_denied", call == .refresh {
                // A refusal (an Action denying access, a scope beyond the grant), not a
                // failure: retrying gets the same answer. The session is kept and its
                // background renewals stop until the user acts (logs in again).
                return AuthError.needsUserAction(UserAction(kind: "access_denied"), text, providerCode: code, httpStatus: status)
            }
            if code == "access_denied" { return AuthError(.invalidArgument, text, providerCode: code, httpStatus: status) }
            return AuthError(.transient, text, providerCode: code, httpStatus: status)
        case .login, .deviceCode, .devicePoll:
            if code == "invalid_client" || code == "unauthorized_client" {
                return AuthError(.configuration, text, providerCode: code, httpStatus: status)
            }
            return AuthError(.unrecoverable, text, providerCode: code, httpStatus: status)
        }
    }
}

extension AuthError {
    /// Whether this is Auth0 saying the refresh token is invalid, expired or revoked
    /// (`invalid_grant`) — "Unknown or invalid refresh token", the error Auth0.swift
    /// users had no helper for (#819). The session has been cleared when the core got it.
    public var isInvalidRefreshToken: Bool {
        providerCode == "invalid_grant" && code == .unrecoverable && (underlying as? Auth0ErrorResponse)?.call == .refresh
    }

    /// Whether Auth0 asked for multi-factor authentication (`mfa_required`); the
    /// ``/Latchkey/AuthError/userAction`` carries the `mfa_token`.
    public var isMFARequired: Bool {
        providerCode == "mfa_required" && code == .needsUserAction
    }
}
