import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// Auth0's Authentication API: `/oauth/token` (password-realm, password, refresh_token,
/// authorization_code with PKCE, device_code), `/authorize` (with the browser's Auth0
/// session cookie), `/v2/logout`, `/oauth/device/code`, `/userinfo`, `/oauth/revoke`,
/// discovery and JWKS.
struct Auth0API: ProviderAPI {
    let provider = EmulatorProvider.auth0
    let seed: Auth0Seed
    let store: Auth0Store
    let keys: SigningKeyRing
    let clock: EmulatorClock
    /// `http://127.0.0.1:<port>/`, known once the server is bound.
    let baseURL: BaseURL
    /// Proofs, nonces and token bindings (RFC 9449).
    let dpop: Auth0DPoP
    /// Switches the emulator between the error shapes.
    let errorShape = Auth0ErrorShape()

    static let token = EmulatorRoute(.auth0, "POST", "/oauth/token")
    static let authorize = EmulatorRoute(.auth0, "GET", "/authorize")
    static let deviceCode = EmulatorRoute(.auth0, "POST", "/oauth/device/code")
    static let userInfo = EmulatorRoute(.auth0, "GET", "/userinfo")
    static let revoke = EmulatorRoute(.auth0, "POST", "/oauth/revoke")
    static let discovery = EmulatorRoute(.auth0, "GET", "/.well-known/openid-configuration")
    static let jwks = EmulatorRoute(.auth0, "GET", "/.well-known/jwks.json")

    static let authorizeSubmit = EmulatorRoute(.auth0, "POST", "/authorize")
    static let activate = EmulatorRoute(.auth0, "GET", "/activate")
    static let activateSubmit = EmulatorRoute(.auth0, "POST", "/activate")
    static let logout = EmulatorRoute(.auth0, "GET", "/v2/logout")

    static let routes = [token, authorize, deviceCode, userInfo, revoke, discovery, jwks, authorizeSubmit, activate, activateSubmit, logout]

    /// The cookie carrying the browser's Auth0 session (Auth0's is named `auth0` too).
    static let sessionCookie = "auth0"

    /// The grant types `/oauth/token` knows.
    enum GrantType {
        static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        static let password = "password"
        static let refreshToken = "refresh_token"
        static let authorizationCode = "authorization_code"
        static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
        static let mfaOTP = "http://auth0.com/oauth/grant-type/mfa-otp"
        static let mfaRecoveryCode = "http://auth0.com/oauth/grant-type/mfa-recovery-code"
    }

    func match(_ request: EmulatorRequest) -> RouteMatch? {
        guard let route = Self.routes.first(where: { $0.method == request.method && $0.path == request.path }) else { return nil }
        var grant: String?
        if route == Self.token { grant = (try? request.fields())?.nonEmptyString("grant_type") }
        return RouteMatch(route: route, grant: grant)
    }

    func respond(to request: EmulatorRequest, route: EmulatorRoute) async -> EmulatorResponse {
        do {
            return try await handle(request, route: route)
        } catch let error as Auth0Error {
            return error.response(legacy: errorShape.isLegacy)
        } catch {
            return Auth0Error(status: 500, error: "server_error", description: "The emulator failed: \(error)").response()
        }
    }

    func errorResponse(status: Int, error: String?, message: String?) -> EmulatorResponse {
        Auth0Error(
            status: status, error: error ?? Auth0Error.defaultError(for: status), description: message ?? "Injected error.",
            headers: status == 429 ? Auth0Error.rateLimitHeaders(now: clock.now) : []
        ).response(legacy: errorShape.isLegacy)
    }

    func malformedResponse() -> EmulatorResponse {
        EmulatorResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(#"{"access_token":"ey"#.utf8))
    }

    /// `https://{domain}/`: Auth0's issuer is its domain's, whatever URL the request came to.
    var issuer: String {
        "https://\(Auth0Endpoint.domain(seed: seed, root: URL(string: baseURL.value) ?? URL(fileURLWithPath: "/")))/"
    }

    /// Where this tenant answers: the endpoints a client can reach.
    private var root: String { baseURL.value }

    /// The URL a request was sent to, as a DPoP proof's `htu` names it: through the host
    /// the client used (`Host`), else the base URL.
    private func requestURL(_ request: EmulatorRequest) -> String {
        guard let host = request.header("host"), !host.isEmpty else { return root + request.path.dropFirst() }
        return "http://\(host)\(request.path)"
    }

    // MARK: Handlers

    private func handle(_ request: EmulatorRequest, route: EmulatorRoute) async throws -> EmulatorResponse {
        switch route {
        case Self.discovery: return .json(discoveryDocument())
        case Self.jwks: return .json(.object(["keys": .array(await keys.keySet.keys.map { .object($0.jwk().object) })]))
        case Self.userInfo: return try await userInfo(request)
        case Self.authorize: return try await authorize(request.query, cookie: Self.cookie(Self.sessionCookie, in: request))
        case Self.authorizeSubmit: return try await submitLogin(request)
        case Self.activate: return Auth0Pages.activate(userCode: request.query["user_code"] ?? "", message: nil)
        case Self.activateSubmit: return try await submitActivation(request)
        case Self.logout: return await browserLogout(request)
        default: break
        }
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw Auth0Error.invalidRequest(error.message) }
        // Machine clients are applications of their own, with secrets: not the seed's client.
        if route == Self.token, fields.nonEmptyString("grant_type") == Self.clientCredentialsGrant { return try await clientCredentials(fields) }
        guard let clientID = fields.nonEmptyString("client_id") else { throw Auth0Error.missing("client_id") }
        guard clientID == seed.clientID else { throw Auth0Error.invalidClient }
        switch route {
        case Self.revoke:
            guard let token = fields.nonEmptyString("token") else { throw Auth0Error.missing("token") }
            await store.revoke(token)
            return EmulatorResponse(status: 200)
        case Self.deviceCode:
            let device = try await store.startDevice(
                scope: fields.nonEmptyString("scope") ?? "openid profile email", audience: fields.nonEmptyString("audience"),
                organization: fields.nonEmptyString("organization"))
            let verification = root + "activate"
            return EmulatorResponse.json([
                "device_code": .string(device.deviceCode), "user_code": .string(device.userCode),
                "verification_uri": .string(verification),
                "verification_uri_complete": .string(verification + "?user_code=" + device.userCode),
                "expires_in": 900, "interval": .number(Double(device.interval)),
            ]).noStore()
        default:
            return try await token(fields, request: request)
        }
    }

    private func token(_ fields: JSONObject, request: EmulatorRequest) async throws -> EmulatorResponse {
        guard let grantType = fields.nonEmptyString("grant_type") else { throw Auth0Error.missing("grant_type") }
        let jkt = try await dpop.tokenRequestProof(request, url: requestURL(request))
        let now = clock.now
        let issued: Auth0Store.Issued
        var extra: JSONObject = [:]
        switch grantType {
        case GrantType.passwordRealm, GrantType.password:
            guard let username = fields.nonEmptyString("username") else { throw Auth0Error.missing("username") }
            guard let password = fields.nonEmptyString("password") else { throw Auth0Error.missing("password") }
            if grantType == GrantType.passwordRealm {
                guard let realm = fields.nonEmptyString("realm") else { throw Auth0Error.missing("realm") }
                guard realm == seed.connection else { throw Auth0Error.invalidRequest("Unknown realm: \(realm)") }
            }
            let (scope, audience) = (fields.nonEmptyString("scope") ?? "openid profile email", fields.nonEmptyString("audience"))
            let grant = try await store.passwordLogin(username: username, password: password) { userID in
                Auth0Store.Grant(userID: userID, scope: scope, audience: audience, authTime: now)
            }
            issued = try await store.issue(grant)
        case GrantType.mfaOTP, GrantType.mfaRecoveryCode:
            guard let mfaToken = fields.nonEmptyString("mfa_token") else { throw Auth0Error.missing("mfa_token") }
            let otp = grantType == GrantType.mfaOTP ? fields.nonEmptyString("otp") : nil
            let recoveryCode = grantType == GrantType.mfaRecoveryCode ? fields.nonEmptyString("recovery_code") : nil
            if grantType == GrantType.mfaOTP, otp == nil { throw Auth0Error.missing("otp") }
            if grantType == GrantType.mfaRecoveryCode, recoveryCode == nil { throw Auth0Error.missing("recovery_code") }
            let finished = try await store.finishMFA(token: mfaToken, otp: otp, recoveryCode: recoveryCode)
            issued = try await store.issue(finished.grant)
            if let code = finished.newRecoveryCode { extra["recovery_code"] = .string(code) }
        case GrantType.refreshToken:
            guard let refreshToken = fields.nonEmptyString("refresh_token") else { throw Auth0Error.missing("refresh_token") }
            try await dpop.checkRefresh(refreshToken, jkt: jkt)
            issued = try await store.refresh(refreshToken, scope: fields.nonEmptyString("scope"), audience: fields.nonEmptyString("audience"))
        case GrantType.authorizationCode:
            guard let code = fields.nonEmptyString("code") else { throw Auth0Error.missing("code") }
            let grant = try await store.redeemCode(
                code, verifier: fields.nonEmptyString("code_verifier"), redirectURI: fields.nonEmptyString("redirect_uri"))
            issued = try await store.issue(grant)
        case GrantType.deviceCode:
            guard let deviceCode = fields.nonEmptyString("device_code") else { throw Auth0Error.missing("device_code") }
            issued = try await store.issue(store.pollDevice(deviceCode))
        default:
            throw Auth0Error(status: 403, error: "unauthorized_client", description: "Grant type '\(grantType)' not allowed for the client.")
        }
        return try await tokenResponse(issued, extra: extra, jkt: jkt)
    }

    /// `{access_token, refresh_token?, id_token?, scope, expires_in, token_type}`, then
    /// `extra` (the recovery grant's new `recovery_code`). With a DPoP key's thumbprint
    /// `jkt`, the tokens are bound to it: `token_type: DPoP`, and `cnf.jkt` in a JWT.
    private func tokenResponse(_ issued: Auth0Store.Issued, extra: JSONObject = [:], jkt: String? = nil) async throws -> EmulatorResponse {
        let key = await keys.signingKey
        var accessToken = issued.accessToken
        if let audience = issued.grant.audience {
            var claims = accessTokenClaims(issued, audience: audience)
            if let jkt { claims["cnf"] = .object(["jkt": .string(jkt)]) }
            accessToken = try JWT.sign(claims, key: key)
            await store.register(accessToken: accessToken, for: issued.grant)
        }
        if let jkt { await dpop.bind(accessToken: accessToken, refreshToken: issued.refreshToken, to: jkt) }
        var body: JSONObject = ["access_token": .string(accessToken)]
        if let refreshToken = issued.refreshToken { body["refresh_token"] = .string(refreshToken) }
        if issued.grant.scopes.contains("openid") { body["id_token"] = .string(try JWT.sign(idTokenClaims(issued), key: key)) }
        body["scope"] = .string(issued.grant.scope)
        body["expires_in"] = .number(await store.accessLifetime)
        body["token_type"] = jkt == nil ? "Bearer" : "DPoP"
        for member in extra { body[member.name] = member.value }
        return EmulatorResponse.json(body, headers: await dpop.nonceHeaders()).noStore()
    }

    private func idTokenClaims(_ issued: Auth0Store.Issued) -> JSONObject {
        let now = Timestamp.seconds(clock.now)
        let user = issued.user, scopes = issued.grant.scopes
        var claims = profileClaims(user, scopes: scopes)
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(seed.clientID)
        claims["sub"] = .string(user.userID)
        claims["iat"] = .number(now)
        claims["exp"] = .number(now + Double(seed.idTokenLifetime ?? 36_000))
        claims["azp"] = .string(seed.clientID)
        claims["auth_time"] = .number(Timestamp.seconds(issued.grant.authTime))
        if let nonce = issued.grant.nonce { claims["nonce"] = .string(nonce) }
        if let lifetime = seed.sessionLifetime {
            // Computed at each issue from the session as it stands: a refresh's is later
            // (activity rolls it), while the tenant still ends the session at the login's.
            let from = issued.refreshed ? clock.now : issued.grant.authTime
            claims["session_expiry"] = .number(Timestamp.seconds(from) + Double(lifetime))
        }
        if let organization = issued.grant.organization {
            if organization.hasPrefix("org_") {
                claims["org_id"] = .string(organization)
            } else {
                claims["org_name"] = .string(organization.lowercased())
            }
        }
        return claims
    }

    private func accessTokenClaims(_ issued: Auth0Store.Issued, audience: String) -> JSONObject {
        let now = Timestamp.seconds(clock.now)
        return [
            "iss": .string(issuer), "sub": .string(issued.user.userID), "aud": [.string(audience), .string(issuer + "userinfo")],
            "iat": .number(now), "exp": .number(now + Double(seed.accessTokenLifetime ?? 86_400)), "scope": .string(issued.grant.scope),
            "azp": .string(seed.clientID),
        ]
    }

    private func userInfo(_ request: EmulatorRequest) async throws -> EmulatorResponse {
        let header = request.header("authorization") ?? ""
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["bearer", "dpop"].contains(parts[0].lowercased()),
            let (user, scope) = await store.userInfo(accessToken: String(parts[1]))
        else {
            // Auth0's refusal is plain text; the reason is only in the challenge.
            let domain = Auth0Endpoint.domain(seed: seed, root: URL(string: root) ?? URL(fileURLWithPath: "/"))
            let challenge = #"Bearer realm="\#(domain)", error="invalid_token", error_description="The access token is missing, invalid or expired.""#
            return EmulatorResponse(
                status: 401, headers: [("Content-Type", "text/plain; charset=utf-8"), ("WWW-Authenticate", challenge)],
                body: Array("Unauthorized".utf8))
        }
        try await dpop.checkResource(request, url: requestURL(request), scheme: String(parts[0]), accessToken: String(parts[1]))
        // Auth0 limits /userinfo per user ID (burst 10, 5 a minute): past it, 429
        // `too_many_requests` until the bucket refills; every answer says where it stands.
        let limit = await store.takeUserInfoRequest(userID: user.userID)
        guard limit.allowed else {
            throw Auth0Error(status: 429, error: "too_many_requests", description: "Too Many Requests", headers: limit.headers)
        }
        var claims: JSONObject = ["sub": .string(user.userID)]
        for member in profileClaims(user, scopes: Set(scope.split(separator: " "))) { claims[member.name] = member.value }
        return .json(claims, headers: limit.headers)
    }

    /// The OIDC claims the `profile` and `email` scopes release (ID token and `/userinfo`).
    private func profileClaims(_ user: Auth0Store.User, scopes: Set<Substring>) -> JSONObject {
        var claims = JSONObject()
        if scopes.contains("profile") {
            claims["nickname"] = .string(String(user.email.prefix { $0 != "@" }))
            claims["name"] = .string(user.name)
            claims["picture"] = .string("https://s.gravatar.com/avatar/emulator.png")
            claims["updated_at"] = .string(Timestamp.rfc3339(user.updatedAt))
        }
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = true
        }
        return claims
    }

    /// `GET /authorize`: with `login_hint`, signs that user in at once and redirects to
    /// `redirect_uri` with a code; with the browser's Auth0 session cookie (and no
    /// `prompt=login`), signs its user in silently, as Auth0's SSO does; otherwise answers
    /// the login page (email, password), which posts to `POST /authorize`. A `redirect_uri`
    /// that is not an allowed callback URL gets Auth0's error page, never a redirect.
    private func authorize(_ query: [String: String], cookie: String?) async throws -> EmulatorResponse {
        if let refusal = callbackRefusal(query) { return refusal }
        _ = try checkAuthorization(query)
        if query["login_hint"] == nil, query["prompt"] != "login", let cookie, let session = await store.browserSessionUser(cookie) {
            return try await redirectWithCode(session.user, query, authTime: session.authTime)
        }
        guard let hint = query["login_hint"] else { return Auth0Pages.login(parameters: query, message: nil) }
        guard let user = await store.authorizingUser(loginHint: hint) else {
            throw Auth0Error(status: 403, error: "access_denied", description: "No user can sign in.")
        }
        return try await redirectWithCode(user, query)
    }

    /// `POST /authorize`: the login page's form. A wrong password shows the page again
    /// with an error; a right one redirects with a code.
    private func submitLogin(_ request: EmulatorRequest) async throws -> EmulatorResponse {
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw Auth0Error.invalidRequest(error.message) }
        var parameters: [String: String] = [:]
        for member in fields { if let value = member.value.stringValue { parameters[member.name] = value } }
        let username = parameters.removeValue(forKey: "username") ?? ""
        let password = parameters.removeValue(forKey: "password") ?? ""
        if let refusal = callbackRefusal(parameters) { return refusal }
        _ = try checkAuthorization(parameters)
        guard let user = await store.checkPassword(username: username, password: password) else {
            return Auth0Pages.login(parameters: parameters, message: "Wrong email or password.")
        }
        var response = try await redirectWithCode(user, parameters)
        let session = try await store.startBrowserSession(userID: user.userID)
        response.headers.append(("Set-Cookie", "\(Self.sessionCookie)=\(session); Path=/; HttpOnly; SameSite=Lax"))
        return response
    }

    /// Auth0's error page when `redirect_uri` is not one of the application's Allowed
    /// Callback URLs, compared exactly (port included); `nil` when it is. A missing one
    /// is left to ``checkAuthorization(_:)``.
    private func callbackRefusal(_ query: [String: String]) -> EmulatorResponse? {
        guard query["client_id"] == seed.clientID, let redirectURI = query["redirect_uri"] else { return nil }
        guard !(seed.callbackURLs ?? [Auth0Seed.defaultCallbackURL]).contains(redirectURI) else { return nil }
        return Auth0Pages.error("Callback URL mismatch. \(redirectURI) is not in the list of allowed callback URLs.")
    }

    /// `GET /v2/logout?client_id&returnTo`: ends the browser's Auth0 session (clears the
    /// cookie) and redirects to `returnTo`, which must be an Allowed Logout URL, exactly.
    /// Any other `returnTo` gets an error page and the session stays (the stricter
    /// reading: whether Auth0 still ends it is unconfirmed). Without `returnTo`, a
    /// signed-out page.
    private func browserLogout(_ request: EmulatorRequest) async -> EmulatorResponse {
        var response: EmulatorResponse
        if let returnTo = request.query["returnTo"] {
            guard request.query["client_id"] == seed.clientID, (seed.logoutURLs ?? []).contains(returnTo) else {
                return Auth0Pages.error(
                    "The \"returnTo\" querystring parameter \"\(returnTo)\" is not defined as a valid URL in \"Allowed Logout URLs\".")
            }
            response = .redirect(returnTo)
        } else {
            response = Auth0Pages.done("Signed out", "You are signed out. You can close this window.")
        }
        if let cookie = Self.cookie(Self.sessionCookie, in: request) { await store.endBrowserSession(cookie) }
        response.headers.append(("Set-Cookie", "\(Self.sessionCookie)=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"))
        return response
    }

    /// The value of cookie `name` in the request's `Cookie` header.
    private static func cookie(_ name: String, in request: EmulatorRequest) -> String? {
        for pair in (request.header("cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name { return String(parts[1]) }
        }
        return nil
    }

    /// Checks an authorization request; returns the redirect URI.
    private func checkAuthorization(_ query: [String: String]) throws -> String {
        guard let clientID = query["client_id"], !clientID.isEmpty else { throw Auth0Error.missing("client_id") }
        guard clientID == seed.clientID else { throw Auth0Error.invalidClient }
        guard let redirectURI = query["redirect_uri"], let redirect = URLComponents(string: redirectURI), redirect.scheme != nil else {
            throw Auth0Error.missing("redirect_uri")
        }
        guard query["response_type"] == "code" else {
            throw Auth0Error(
                status: 400, error: "unsupported_response_type", description: "Unsupported response type: \(query["response_type"] ?? "")")
        }
        let challenge = query["code_challenge"]
        if challenge != nil || query["code_challenge_method"] != nil {
            guard query["code_challenge_method"] == "S256" else {
                throw Auth0Error.invalidRequest("code_challenge_method must be S256")
            }
            guard let challenge, Base64URL.decode(challenge)?.count == 32 else {
                throw Auth0Error.invalidRequest("code_challenge must be base64url(SHA-256(code_verifier))")
            }
        }
        return redirectURI
    }

    private func redirectWithCode(_ user: Auth0Store.User, _ query: [String: String], authTime: Date? = nil) async throws -> EmulatorResponse {
        let redirectURI = try checkAuthorization(query)
        let grant = Auth0Store.Grant(
            userID: user.userID, scope: query["scope"] ?? "openid", audience: query["audience"], authTime: authTime ?? clock.now,
            nonce: query["nonce"], organization: query["organization"])
        let code = try await store.createCode(grant: grant, redirectURI: redirectURI, challenge: query["code_challenge"])
        var pairs = [("code", code)]
        if let state = query["state"] { pairs.append(("state", state)) }
        let separator = URLComponents(string: redirectURI)?.query == nil ? "?" : "&"
        return .redirect(redirectURI + separator + FormEncoding.encode(pairs))
    }

    /// `POST /activate`: the device verification page's form (user code, email,
    /// password, and approve or deny).
    private func submitActivation(_ request: EmulatorRequest) async throws -> EmulatorResponse {
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw Auth0Error.invalidRequest(error.message) }
        let userCode = fields.nonEmptyString("user_code") ?? ""
        if fields.nonEmptyString("action") == "deny" {
            guard await store.decideDevice(userCode: userCode, approveAs: nil) else {
                return Auth0Pages.activate(userCode: userCode, message: "Unknown or expired code.")
            }
            return Auth0Pages.done("Device access denied", "You denied the device. You can close this window.")
        }
        guard
            let user = await store.checkPassword(username: fields.nonEmptyString("username") ?? "", password: fields.nonEmptyString("password") ?? "")
        else {
            return Auth0Pages.activate(userCode: userCode, message: "Wrong email or password.")
        }
        guard await store.decideDevice(userCode: userCode, approveAs: user.userID) else {
            return Auth0Pages.activate(userCode: userCode, message: "Unknown or expired code.")
        }
        return Auth0Pages.done("Device approved", "Your device is now signed in. You can close this window.")
    }

    private func discoveryDocument() -> JSONObject {
        // The issuer is the domain's; the endpoints are where this emulator answers.
        [
            "issuer": .string(issuer), "authorization_endpoint": .string(root + "authorize"), "token_endpoint": .string(root + "oauth/token"),
            "device_authorization_endpoint": .string(root + "oauth/device/code"), "userinfo_endpoint": .string(root + "userinfo"),
            "jwks_uri": .string(root + ".well-known/jwks.json"), "revocation_endpoint": .string(root + "oauth/revoke"),
            "scopes_supported": ["openid", "profile", "offline_access", "name", "nickname", "picture", "email", "email_verified"],
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
            "response_modes_supported": ["query"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "claims_supported": [
                "aud", "auth_time", "created_at", "email", "email_verified", "exp", "family_name", "given_name", "iat",
                "identities", "iss", "name", "nickname", "phone_number", "picture", "sub",
            ],
            "request_uri_parameter_supported": false,
        ]
    }
}
