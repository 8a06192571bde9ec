internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// The social.plus calls the adapter makes, and how their answers become sessions.
struct SocialPlusAPI: Sendable {
    let configuration: SocialPlusConfiguration
    let transport: any HTTPTransport
    let clock: any SessionClock

    /// A session-creation body (`POST /api/v5/sessions`).
    struct SessionRequest: Sendable {
        var userID: String
        var displayName: String?
        var authToken: String?
        var deviceID: String
        var deviceInfo: SocialPlusDeviceInfo
        /// How the session was started, kept in the tokens for renewals.
        var login: LoginKind
    }

    /// How a session was started, kept in its record: renewals of an access-token
    /// session ask the access-token handler, the others the session handler; a session
    /// that logged in with an auth token (secure mode) cannot renew without one.
    enum LoginKind: String {
        case userID = "userId"
        case authToken
        case accessToken
    }

    /// Attribute names in ``/Latchkey/SessionTokens/attributes``.
    enum Attribute {
        static let userID = "user_id"
        static let login = "login"
    }

    // MARK: Calls

    /// Logs in (or in again, to renew).
    func createSession(_ request: SessionRequest) async throws -> AuthenticatedSession {
        var body: JSONObject = ["userId": .string(request.userID)]
        if let displayName = request.displayName { body["displayName"] = .string(displayName) }
        if let authToken = request.authToken { body["authToken"] = .string(authToken) }
        body["deviceId"] = .string(request.deviceID)
        var deviceInfo: JSONObject = ["kind": .string(request.deviceInfo.kind)]
        if let model = request.deviceInfo.model { deviceInfo["model"] = .string(model) }
        deviceInfo["sdkVersion"] = .string(request.deviceInfo.sdkVersion)
        body["deviceInfo"] = .object(deviceInfo)
        let http = TransportRequest(
            method: "POST", url: url("api/v5/sessions"),
            headers: ["Content-Type": "application/json", "Accept": "application/json", "X-API-Key": configuration.apiKey],
            body: SocialPlusJSON.body(body), operation: "social.plus api/v5/sessions")
        let (status, object) = try await exchange(http, endpoint: .sessionCreation)
        return try Self.session(from: object, status: status, request: request, receivedAt: clock.now)
    }

    /// The user, checked with the session's token (`GET /api/v3/users/{userId}`).
    /// `endpoint` says what the check is for: a session's check, or an access-token
    /// login or renewal, whose refusals mean other things.
    func user(_ userID: String, accessToken: String, endpoint: SocialPlusErrorMapping.Endpoint = .sessionCheck) async throws -> User {
        let http = TransportRequest(
            method: "GET", url: url("api/v3/users/\(try Self.pathSegment(userID))"),
            headers: ["Accept": "application/json", "Authorization": "Bearer \(accessToken)"],
            operation: "social.plus api/v3/users/{userId}")
        let (status, object) = try await exchange(http, endpoint: endpoint)
        guard let entry = Self.userEntry(in: object, userID: userID) else {
            throw SocialPlusErrorMapping.unreadable(endpoint, status: status, "no user \"\(userID)\" in \"users\"")
        }
        if let ended = SocialPlusErrorMapping.termination(for: entry, status: status) { throw ended }
        return Self.user(entry, userID: userID)
    }

    /// An access-token session: the app's JWT is itself the bearer, so there is no
    /// exchange with social.plus — the token is checked with the user lookup, and the
    /// session lives as long as the JWT, its lifetime (`exp − iat`) started at the local
    /// moment of receipt (the backend's clock may be off ours).
    func accessTokenSession(_ jwt: String, userID: String, endpoint: SocialPlusErrorMapping.Endpoint) async throws -> AuthenticatedSession {
        let user = try await user(userID, accessToken: jwt, endpoint: endpoint)
        let now = clock.now
        let expiresAt = Self.lifetime(ofAccessToken: jwt).map { now.addingTimeInterval($0) }
        let tokens = SessionTokens(
            accessToken: jwt, issuedAt: now, expiresAt: expiresAt,
            attributes: [Attribute.userID: userID, Attribute.login: LoginKind.accessToken.rawValue])
        let session = Session(id: nil, userID: userID, startedAt: now, expiresAt: expiresAt, raw: JSONObject())
        return AuthenticatedSession(tokens: tokens, session: session, user: user)
    }

    /// `exp − iat` of an access-token JWT, read without verification (only for
    /// scheduling: the server checks the token); `nil` without both claims or for a
    /// lifetime that is not a positive, finite number — then the session is renewed
    /// when social.plus refuses the token.
    static func lifetime(ofAccessToken jwt: String) -> TimeInterval? {
        guard let claims = try? JWT.decode(jwt).claims,
            case .number(let issuedAt)? = claims["iat"], case .number(let expiresAt)? = claims["exp"]
        else { return nil }
        let lifetime = expiresAt - issuedAt
        guard lifetime.isFinite, lifetime > 0 else { return nil }
        return lifetime
    }

    /// Ends the session at social.plus (`DELETE /api/v4/sessions`). A 401 means the
    /// token is already gone, which is what was asked.
    func deleteSession(accessToken: String) async throws {
        let http = TransportRequest(
            method: "DELETE", url: url("api/v4/sessions"),
            headers: ["Accept": "application/json", "Authorization": "Bearer \(accessToken)"],
            operation: "social.plus api/v4/sessions (delete)")
        let response = try await transport.send(http)
        if response.status == 401 { return }
        guard (200..<300).contains(response.status) else {
            throw SocialPlusErrorMapping.error(
                status: response.status, headers: response.headers, body: response.body,
                endpoint: .sessionRevocation, now: clock.now)
        }
        guard JSONObject.parsing(response.body)?["success"]?.boolValue == true else {
            throw SocialPlusErrorMapping.unreadable(.sessionRevocation, status: response.status, "no \"success\": true")
        }
    }

    // MARK: Answers

    private func exchange(_ request: TransportRequest, endpoint: SocialPlusErrorMapping.Endpoint) async throws -> (Int, JSONObject) {
        let response = try await transport.send(request)
        guard (200..<300).contains(response.status) else {
            throw SocialPlusErrorMapping.error(
                status: response.status, headers: response.headers, body: response.body,
                endpoint: endpoint, now: clock.now)
        }
        guard let object = JSONObject.parsing(response.body) else {
            throw SocialPlusErrorMapping.unreadable(endpoint, status: response.status, "not a JSON object")
        }
        return (response.status, object)
    }

    /// The session a login answer describes: `{accessToken, issuedAt, expiresAt, users, files}`.
    /// The token's times are its lifetime (`expiresAt − issuedAt`) started at `receivedAt`,
    /// the local moment of receipt; the session keeps the server's times as it stated them.
    static func session(from object: JSONObject, status: Int, request: SessionRequest, receivedAt: Date) throws -> AuthenticatedSession {
        guard let accessToken = object.string("accessToken"), !accessToken.isEmpty else {
            throw SocialPlusErrorMapping.unreadable(.sessionCreation, status: status, "no \"accessToken\"")
        }
        guard BearerTokenSyntax.isValid(accessToken) else {
            throw SocialPlusErrorMapping.unreadable(
                .sessionCreation, status: status, "the \"accessToken\" is not a bearer token (RFC 6750 characters only)")
        }
        let issuedAt = object.isoDate("issuedAt")
        guard let expiresAt = object.isoDate("expiresAt") else {
            throw SocialPlusErrorMapping.unreadable(.sessionCreation, status: status, "no ISO 8601 \"expiresAt\"")
        }
        guard let entry = userEntry(in: object, userID: request.userID) else {
            throw SocialPlusErrorMapping.unreadable(.sessionCreation, status: status, "no user \"\(request.userID)\" in \"users\"")
        }
        if let ended = SocialPlusErrorMapping.termination(for: entry, status: status) { throw ended }
        let times = ServerLifetime.localTimes(receivedAt: receivedAt, issuedAt: issuedAt, expiresAt: expiresAt)
        let tokens = SessionTokens(
            accessToken: accessToken, issuedAt: times.issuedAt, expiresAt: times.expiresAt,
            attributes: [Attribute.userID: request.userID, Attribute.login: request.login.rawValue])
        var raw = JSONObject()
        if let issued = object["issuedAt"] { raw["issuedAt"] = issued }
        raw["expiresAt"] = object["expiresAt"]
        let session = Session(id: nil, userID: request.userID, startedAt: issuedAt, expiresAt: expiresAt, raw: raw)
        return AuthenticatedSession(tokens: tokens, session: session, user: user(entry, userID: request.userID))
    }

    private static func userEntry(in object: JSONObject, userID: String) -> JSONObject? {
        object["users"]?.arrayValue?.lazy.compactMap(\.objectValue).first { $0.string("userId") == userID }
    }

    private static func user(_ entry: JSONObject, userID: String) -> User {
        let status = entry.bool("isGlobalBanned") == true ? "globalBanned" : entry.bool("isDeleted") == true ? "deleted" : "active"
        return User(id: userID, name: entry.string("displayName"), status: status, raw: entry)
    }

    /// The base URL with `path` (already percent-encoded) appended.
    private func url(_ path: String) -> URL {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/" + path) ?? configuration.baseURL
    }

    /// A user ID as one path segment (IDs may hold `/`, spaces, anything).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/invalidArgument`` for `.` and `..`: percent-encoding
    ///   cannot make them safe (`%2E%2E` is a dot segment to WHATWG parsers and to
    ///   normalizing proxies), and `users/..` would send the bearer token to `/api/v3/`.
    static func pathSegment(_ text: String) throws(AuthError) -> String {
        try SocialPlusLimits.checkNotDotSegment(text, "userId")
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
