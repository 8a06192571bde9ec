import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// social.plus: login (`POST /api/v5/sessions`), secure logout, server-minted auth
/// tokens (the documented `GET /api/v3/authentication/token` and the sample's
/// `POST /api/v4/authentication/token`) and user lookup. The bearer of a call is a
/// session's access token or an access-token-login JWT: that login has no exchange.
struct SocialPlusAPI: ProviderAPI {
    let provider = EmulatorProvider.socialPlus
    let seed: SocialPlusSeed
    let store: SocialPlusStore
    let clock: EmulatorClock
    /// Verifies access-token-login JWTs (HS256 with the seed's secret).
    let accessTokenKey: JWTKey

    static let login = EmulatorRoute(.socialPlus, "POST", "/api/v5/sessions")
    static let logout = EmulatorRoute(.socialPlus, "DELETE", "/api/v4/sessions")
    static let authenticationToken = EmulatorRoute(.socialPlus, "POST", "/api/v4/authentication/token")
    static let authenticationTokenV3 = EmulatorRoute(.socialPlus, "GET", "/api/v3/authentication/token")
    static let user = EmulatorRoute(.socialPlus, "GET", "/api/v3/users/{userId}")

    static let routes = [login, logout, authenticationToken, authenticationTokenV3, user]

    /// The longest `authToken` a login takes (social.plus's documented limit).
    static let authTokenLimit = 100
    /// The `deviceInfo.kind`s the service takes. `node` is documented, but the TypeScript
    /// SDK sends `web` from Node "until the backend has fixed this": it is refused.
    static let deviceKinds: Set<String> = ["ios", "android", "web"]

    init(seed: SocialPlusSeed, store: SocialPlusStore, clock: EmulatorClock) throws {
        self.seed = seed
        self.store = store
        self.clock = clock
        accessTokenKey = try JWTKey.hmac(Array(seed.accessTokenSecret.utf8), algorithm: .hs256)
    }

    func match(_ request: EmulatorRequest) -> RouteMatch? {
        let route: EmulatorRoute?
        switch (request.method, request.segments) {
        case ("POST", ["api", "v5", "sessions"]): route = Self.login
        case ("DELETE", ["api", "v4", "sessions"]): route = Self.logout
        case ("POST", ["api", "v4", "authentication", "token"]): route = Self.authenticationToken
        case ("GET", ["api", "v3", "authentication", "token"]): route = Self.authenticationTokenV3
        case ("GET", let path) where path.count == 4 && path.starts(with: ["api", "v3", "users"]) && !path[3].isEmpty: route = Self.user
        default: route = nil
        }
        return route.map { RouteMatch(route: $0) }
    }

    func respond(to request: EmulatorRequest, route: EmulatorRoute) async -> EmulatorResponse {
        do {
            return try await handle(request, route: route)
        } catch let error as SocialPlusError {
            return error.response()
        } catch {
            return SocialPlusError(status: 500, code: 500_000, message: "The emulator failed: \(error)").response()
        }
    }

    func errorResponse(status: Int, error: String?, message: String?) -> EmulatorResponse {
        SocialPlusError(
            status: status, code: error.flatMap { Int($0) } ?? SocialPlusError.defaultCode(for: status),
            message: message ?? "Injected error."
        ).response()
    }

    func malformedResponse() -> EmulatorResponse {
        EmulatorResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(#"{"accessToken":"#.utf8))
    }

    // MARK: Handlers

    private func handle(_ request: EmulatorRequest, route: EmulatorRoute) async throws -> EmulatorResponse {
        switch route {
        case Self.login:
            guard let apiKey = request.header("x-api-key"), constantTimeEquals(apiKey, seed.apiKey) else {
                throw SocialPlusError.unauthorized("Invalid API key.")
            }
            return try await login(fields(request))
        case Self.authenticationToken, Self.authenticationTokenV3:
            guard let serverKey = request.header("x-server-key"), constantTimeEquals(serverKey, seed.serverKey) else {
                throw SocialPlusError.unauthorized("Invalid server key.")
            }
            let userID =
                route == Self.authenticationTokenV3
                ? request.query["userId"].flatMap { $0.isEmpty ? nil : $0 }
                : try fields(request).nonEmptyString("userId")
            guard let userID else { throw SocialPlusError.badRequest("userId is required.") }
            return .text(try await store.mintAuthToken(userID: userID))
        case Self.logout:
            let token = try bearer(request)
            if try await authenticate(token) {
                await store.logout(accessToken: token)
            } else {
                await store.revoke(jwt: token)
            }
            return .json(["success": true])
        default:
            let token = try bearer(request)
            _ = try await authenticate(token)
            let userID = request.segments[3]
            guard let user = await store.user(userID) else { throw SocialPlusError.userNotFound }
            return .json(["users": [.object(userJSON(user))], "files": []])
        }
    }

    /// Checks a bearer token: a live session's access token (`true`), or an
    /// access-token-login JWT signed with the network's key, unexpired on the emulator
    /// clock, whose `userId` claim names the caller (`false`).
    private func authenticate(_ token: String) async throws(SocialPlusError) -> Bool {
        if await store.isSessionToken(token) {
            _ = try await store.caller(accessToken: token)
            return true
        }
        let clock = self.clock
        guard let jwt = try? JWT.verify(token, keys: accessTokenKey, options: JWTValidationOptions(leeway: 0, now: { clock.now })),
            let userID = jwt.claims["userId"]?.stringValue, !userID.isEmpty
        else {
            throw .unauthorized()
        }
        _ = try await store.caller(jwt: token, userID: userID)
        return false
    }

    private func fields(_ request: EmulatorRequest) throws(SocialPlusError) -> JSONObject {
        do { return try request.fields() } catch { throw .badRequest(error.message) }
    }

    private func bearer(_ request: EmulatorRequest) throws(SocialPlusError) -> String {
        let parts = (request.header("authorization") ?? "").split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .unauthorized("The bearer token is missing.") }
        return String(parts[1])
    }

    private func login(_ fields: JSONObject) async throws -> EmulatorResponse {
        guard let userID = fields.nonEmptyString("userId") else { throw SocialPlusError.badRequest("userId is required.") }
        guard fields.nonEmptyString("deviceId") != nil else { throw SocialPlusError.badRequest("deviceId is required.") }
        guard let deviceInfo = fields["deviceInfo"]?.objectValue, let kind = deviceInfo.nonEmptyString("kind") else {
            throw SocialPlusError.badRequest("deviceInfo.kind is required.")
        }
        guard Self.deviceKinds.contains(kind) else {
            throw SocialPlusError.badRequest("deviceInfo.kind must be one of \(Self.deviceKinds.sorted().joined(separator: ", ")).")
        }
        if let displayName = fields["displayName"], displayName != .null, displayName.stringValue == nil {
            throw SocialPlusError.badRequest("displayName must be a string.")
        }
        if let authToken = fields.nonEmptyString("authToken") {
            guard authToken.count <= Self.authTokenLimit else {
                throw SocialPlusError.badRequest("authToken must be at most \(Self.authTokenLimit) characters.")
            }
            // Only a token this network minted for this user, unexpired and unspent: an
            // access-token-login JWT is no auth token (that login has no exchange).
            guard await store.redeemAuthToken(authToken, userID: userID) == true else {
                throw SocialPlusError.unauthorized("Invalid auth token.")
            }
        } else if seed.secureMode {
            throw SocialPlusError.unauthorized("An auth token is required: the network runs in secure mode.")
        }
        let (session, user) = try await store.login(userID: userID, displayName: fields.nonEmptyString("displayName"))
        return .json([
            "accessToken": .string(session.accessToken), "issuedAt": .string(Timestamp.iso8601Milliseconds(session.issuedAt)),
            "expiresAt": .string(Timestamp.iso8601Milliseconds(session.expiresAt)), "users": [.object(userJSON(user))],
            "files": [],
        ])
    }

    private func userJSON(_ user: SocialPlusStore.User) -> JSONObject {
        [
            "userId": .string(user.userID), "displayName": .string(user.displayName), "isDeleted": .bool(user.isDeleted),
            "isGlobalBanned": .bool(user.isGlobalBanned), "roles": [], "permissions": [], "metadata": .object([:]), "flagCount": 0,
            "hashFlag": .null, "createdAt": .string(Timestamp.iso8601Milliseconds(user.createdAt)),
            "updatedAt": .string(Timestamp.iso8601Milliseconds(user.updatedAt)),
        ]
    }
}
