internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// Turns social.plus's answers into ``/Latchkey/AuthError``s.
///
/// Errors are `{"status": "error", "code", "message", "data"?}`. What ends a session is
/// exactly what providers.md says: at session creation, 401 `400100` (`unauthorized`)
/// and `400312` (`globalBan`); a `400312` to a session check; the `isGlobalBanned` and
/// `isDeleted` flags of the user. `400100` anywhere else never ends a session (the code
/// is reused for "not a community member"). 429 is rate limited, 5xx and everything
/// unreadable transient.
enum SocialPlusErrorMapping {
    /// Which call answered: the rules differ by endpoint.
    enum Endpoint: String {
        /// `POST /api/v5/sessions` (login and renewal).
        case sessionCreation = "POST /api/v5/sessions"
        /// `GET /api/v3/users/{userId}` with the session's own token (validation).
        case sessionCheck = "GET /api/v3/users/{userId}"
        /// `GET /api/v3/users/{userId}` with the app's JWT, at an access-token login
        /// (there is no session creation: this check is the login).
        case accessTokenLogin = "GET /api/v3/users/{userId} (access-token login)"
        /// `GET /api/v3/users/{userId}` with the access-token handler's next JWT.
        case accessTokenRenewal = "GET /api/v3/users/{userId} (access-token renewal)"
        /// `DELETE /api/v4/sessions` (secure logout).
        case sessionRevocation = "DELETE /api/v4/sessions"
        /// The backend helper's auth-token endpoint (`GET /api/v3/authentication/token`
        /// or `POST /api/v4/authentication/token`).
        case authTokenMinting = "the auth-token endpoint"
    }

    /// How long a renewal the app could not serve waits: the documented 10 minutes.
    static let unableRetry = Duration.seconds(600)

    static let unauthorizedCode = "400100"
    static let globalBanCode = "400312"

    /// The error a non-2xx answer means, naming the endpoint that answered.
    static func error(status: Int, headers: TransportHeaders, body: Data, endpoint: Endpoint, now: Date) -> AuthError {
        var error = classification(status: status, headers: headers, body: body, endpoint: endpoint, now: now)
        error.endpoint = endpoint.rawValue
        return error
    }

    private static func classification(status: Int, headers: TransportHeaders, body: Data, endpoint: Endpoint, now: Date) -> AuthError {
        let object = JSONObject.parsing(body)
        let code = object?.stringOrInteger("code")
        let message = object?.string("message").map { "social.plus: \($0)" } ?? "social.plus answered HTTP \(status) to \(endpoint.rawValue)"
        if status == 429 {
            return AuthError.rateLimited(
                retryAfter: TransportResponse(status: status, headers: headers).retryAfter, message,
                providerCode: code, httpStatus: status)
        }
        if status >= 500 { return AuthError(.transient, message, providerCode: code, httpStatus: status) }
        switch endpoint {
        case .sessionCreation:
            if code == globalBanCode { return .terminated(.globalBan, message, providerCode: code, httpStatus: status) }
            if status == 401, code == unauthorizedCode {
                return .terminated(.unauthorized, message, providerCode: code, httpStatus: status)
            }
            if status == 400 { return AuthError(.invalidArgument, message, providerCode: code, httpStatus: status) }
        case .sessionCheck:
            if code == globalBanCode { return .terminated(.globalBan, message, providerCode: code, httpStatus: status) }
            // An expired or replaced token: renew once and check again. The user check is not
            // a session endpoint (providers.md: only their answers end a session), and the
            // renewal is a login at one: when it succeeded, a refusal of the new token here
            // too — its tokens expired again while the check was retried, say — keeps the
            // session, to be checked (and renewed) again later.
            if status == 401 {
                var error = AuthError(.renewAndRecheck, message, providerCode: code, httpStatus: status)
                error.repeatedRefusalEndsSession = false
                return error
            }
        case .accessTokenLogin:
            // The app's JWT refused: the login fails as a refused session creation does —
            // `unauthorized` only for social.plus's own 401 `400100`; another 401 (a proxy's,
            // a body without the code) is transient there too, and the login may be tried again.
            if code == globalBanCode { return .terminated(.globalBan, message, providerCode: code, httpStatus: status) }
            if status == 401, code == unauthorizedCode { return .terminated(.unauthorized, message, providerCode: code, httpStatus: status) }
            if status == 400 || status == 404 { return AuthError(.invalidArgument, message, providerCode: code, httpStatus: status) }
        case .accessTokenRenewal:
            if code == globalBanCode { return .terminated(.globalBan, message, providerCode: code, httpStatus: status) }
            // The handler's new JWT refused: the session (with its current token) is kept
            // and the handler asked again later, as when it fails.
            if status == 401 {
                var error = AuthError(
                    .transient, message + " (the access-token handler's token was refused); asking again in 10 minutes",
                    providerCode: code, httpStatus: status)
                error.retryAfter = unableRetry
                return error
            }
        case .sessionRevocation:
            break
        case .authTokenMinting:
            if status == 401 { return AuthError(.configuration, message + " (check the server key)", providerCode: code, httpStatus: status) }
            if status == 400 { return AuthError(.invalidArgument, message, providerCode: code, httpStatus: status) }
        }
        // Nothing documented ends a session here: keep everything, try again later.
        return AuthError(.transient, message, providerCode: code, httpStatus: status)
    }

    /// A 2xx answer whose body cannot be read: transient (a proxy, a cut connection).
    static func unreadable(_ endpoint: Endpoint, status: Int, _ what: String) -> AuthError {
        AuthError(.transient, "social.plus answered \(endpoint.rawValue) with an unreadable body: \(what)", httpStatus: status)
    }

    /// The termination the user's flags mean, if any.
    static func termination(for user: JSONObject, status: Int) -> AuthError? {
        if user.bool("isGlobalBanned") == true {
            return .terminated(.globalBan, "social.plus: the user is globally banned", httpStatus: status)
        }
        if user.bool("isDeleted") == true {
            return .terminated(.userDeleted, "social.plus: the user has been deleted", httpStatus: status)
        }
        return nil
    }
}
