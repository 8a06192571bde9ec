import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// Stytch's client-side SDK API (`/sdk/v1/...`) and its session JWKS (`/v1/...`).
struct StytchAPI: ProviderAPI {
    let provider = EmulatorProvider.stytch
    let seed: StytchSeed
    let store: StytchStore
    let keys: SigningKeyRing
    let clock: EmulatorClock

    static let sessionsAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/authenticate")
    static let sessionsRevoke = EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/revoke")
    static let passwordsAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/passwords/authenticate")
    static let otpsAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/authenticate")
    static let magicLinksAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/magic_links/authenticate")
    static let magicLinksEmailLoginOrCreate = EmulatorRoute(.stytch, "POST", "/sdk/v1/magic_links/email/login_or_create")
    static let b2bMagicLinksEmailLoginOrSignup = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/magic_links/email/login_or_signup")
    static let otpsSMSLoginOrCreate = EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/sms/login_or_create")
    static let otpsWhatsAppLoginOrCreate = EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/whatsapp/login_or_create")
    static let otpsEmailLoginOrCreate = EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/email/login_or_create")
    static let b2bMagicLinksDiscoverySend = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/magic_links/email/discovery/send")
    static let b2bMagicLinksDiscoveryAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/magic_links/discovery/authenticate")
    static let b2bSessionsAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/sessions/authenticate")
    static let b2bSessionsRevoke = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/sessions/revoke")
    static let b2bPasswordsAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/passwords/authenticate")
    static let b2bMagicLinksAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/magic_links/authenticate")
    static let b2bSMSSend = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/otps/sms/send")
    static let b2bSMSAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/otps/sms/authenticate")
    static let b2bTOTPAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/totp/authenticate")
    static let b2bRecoveryCodesRecover = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/recovery_codes/recover")
    static let b2bDiscoveryOrganizations = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/discovery/organizations")
    static let b2bDiscoveryExchange = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/discovery/intermediate_sessions/exchange")
    static let bootstrap = EmulatorRoute(.stytch, "GET", "/sdk/v1/projects/bootstrap/{public_token}")
    static let jwks = EmulatorRoute(.stytch, "GET", "/v1/sessions/jwks/{project_id}")
    static let b2bJWKS = EmulatorRoute(.stytch, "GET", "/v1/b2b/sessions/jwks/{project_id}")
    /// Not Stytch's: the app's own API, which checks the bearer session JWT
    /// (`StytchAPI+App.swift`).
    static let appSession = EmulatorRoute(.stytch, "GET", "/__app/session")
    static let b2bAppSession = EmulatorRoute(.stytch, "GET", "/__app/b2b/session")

    /// Every route, for documentation and the control API.
    static let routes =
        [
            sessionsAuthenticate, sessionsRevoke, passwordsAuthenticate, otpsAuthenticate, magicLinksAuthenticate,
            magicLinksEmailLoginOrCreate, b2bMagicLinksEmailLoginOrSignup, otpsSMSLoginOrCreate, otpsWhatsAppLoginOrCreate,
            otpsEmailLoginOrCreate, b2bMagicLinksDiscoverySend, b2bMagicLinksDiscoveryAuthenticate,
            b2bSessionsAuthenticate, b2bSessionsRevoke, b2bPasswordsAuthenticate, b2bMagicLinksAuthenticate, b2bSMSSend,
            b2bSMSAuthenticate, b2bTOTPAuthenticate, b2bRecoveryCodesRecover, b2bDiscoveryOrganizations, b2bDiscoveryExchange,
            bootstrap, jwks, b2bJWKS, appSession, b2bAppSession,
        ] + oauthRoutes

    /// Session durations Stytch accepts, in minutes (5 minutes to 366 days).
    static let durationRange = 5...527_040
    /// A session JWT lives 5 minutes, whatever the session's length.
    static let jwtLifetime: TimeInterval = 300

    func match(_ request: EmulatorRequest) -> RouteMatch? {
        let segments = request.segments
        let route: EmulatorRoute?
        switch (request.method, segments) {
        case ("POST", ["sdk", "v1", "sessions", "authenticate"]): route = Self.sessionsAuthenticate
        case ("POST", ["sdk", "v1", "sessions", "revoke"]): route = Self.sessionsRevoke
        case ("POST", ["sdk", "v1", "passwords", "authenticate"]): route = Self.passwordsAuthenticate
        case ("POST", ["sdk", "v1", "otps", "authenticate"]): route = Self.otpsAuthenticate
        case ("POST", ["sdk", "v1", "magic_links", "authenticate"]): route = Self.magicLinksAuthenticate
        case ("POST", ["sdk", "v1", "magic_links", "email", "login_or_create"]): route = Self.magicLinksEmailLoginOrCreate
        case ("POST", ["sdk", "v1", "b2b", "magic_links", "email", "login_or_signup"]): route = Self.b2bMagicLinksEmailLoginOrSignup
        case ("POST", ["sdk", "v1", "otps", "sms", "login_or_create"]): route = Self.otpsSMSLoginOrCreate
        case ("POST", ["sdk", "v1", "otps", "whatsapp", "login_or_create"]): route = Self.otpsWhatsAppLoginOrCreate
        case ("POST", ["sdk", "v1", "otps", "email", "login_or_create"]): route = Self.otpsEmailLoginOrCreate
        case ("POST", ["sdk", "v1", "b2b", "magic_links", "email", "discovery", "send"]): route = Self.b2bMagicLinksDiscoverySend
        case ("POST", ["sdk", "v1", "b2b", "magic_links", "discovery", "authenticate"]): route = Self.b2bMagicLinksDiscoveryAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "sessions", "authenticate"]): route = Self.b2bSessionsAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "sessions", "revoke"]): route = Self.b2bSessionsRevoke
        case ("POST", ["sdk", "v1", "b2b", "passwords", "authenticate"]): route = Self.b2bPasswordsAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "magic_links", "authenticate"]): route = Self.b2bMagicLinksAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "otps", "sms", "send"]): route = Self.b2bSMSSend
        case ("POST", ["sdk", "v1", "b2b", "otps", "sms", "authenticate"]): route = Self.b2bSMSAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "totp", "authenticate"]): route = Self.b2bTOTPAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "recovery_codes", "recover"]): route = Self.b2bRecoveryCodesRecover
        case ("POST", ["sdk", "v1", "b2b", "discovery", "organizations"]): route = Self.b2bDiscoveryOrganizations
        case ("POST", ["sdk", "v1", "b2b", "discovery", "intermediate_sessions", "exchange"]): route = Self.b2bDiscoveryExchange
        case ("GET", let path) where path.count == 5 && path.starts(with: ["sdk", "v1", "projects", "bootstrap"]): route = Self.bootstrap
        case ("GET", let path) where path.count == 4 && path.starts(with: ["v1", "sessions", "jwks"]): route = Self.jwks
        case ("GET", let path) where path.count == 5 && path.starts(with: ["v1", "b2b", "sessions", "jwks"]): route = Self.b2bJWKS
        case ("GET", ["__app", "session"]): route = Self.appSession
        case ("GET", ["__app", "b2b", "session"]): route = Self.b2bAppSession
        default: route = matchOAuth(request)
        }
        return route.map { RouteMatch(route: $0) }
    }

    func respond(to request: EmulatorRequest, route: EmulatorRoute) async -> EmulatorResponse {
        let requestID = "request-id-test-" + ((try? OpaqueToken.uuid()) ?? "0")
        do {
            return try await handle(request, route: route, requestID: requestID)
        } catch let error as StytchError {
            return error.response(requestID: requestID)
        } catch {
            return StytchError(status: 500, type: "internal_server_error", message: "The emulator failed: \(error)").response(requestID: requestID)
        }
    }

    func errorResponse(status: Int, error: String?, message: String?) -> EmulatorResponse {
        StytchError(status: status, type: error ?? StytchError.defaultType(for: status), message: message ?? "Injected error.")
            .response(requestID: "request-id-test-" + ((try? OpaqueToken.uuid()) ?? "0"))
    }

    func malformedResponse() -> EmulatorResponse {
        EmulatorResponse(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array(#"{"data":{"status_code":200,"request_id":"request-id-test-"#.utf8))
    }

    // MARK: Handlers

    private func handle(_ request: EmulatorRequest, route: EmulatorRoute, requestID: String) async throws -> EmulatorResponse {
        switch route {
        case Self.jwks, Self.b2bJWKS:
            guard request.segments.last == seed.projectID else {
                throw StytchError(status: 404, type: "project_not_found", message: "Project could not be found.")
            }
            var body = JSONObject()
            body["keys"] = .array(await keys.keySet.keys.map { .object($0.jwk().object) })
            body["request_id"] = .string(requestID)
            body["status_code"] = 200
            return .json(body)
        case Self.bootstrap:
            try checkAppIdentifier(request)
            guard request.segments.last == seed.publicToken else {
                throw StytchError.unauthorized("The public token is not valid for this project.")
            }
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "project_id": .string(seed.projectID),
                    "cname_domain": .null, "email_domains": .array([]), "captcha_settings": .object(["enabled": false]),
                    "password_config": .object(["luds_complexity": 3, "luds_minimum_count": 8]),
                ])
            ])
        case Self.appSession, Self.b2bAppSession:
            return try await appSession(request, b2b: route == Self.b2bAppSession, requestID: requestID)
        case Self.oauthStart, Self.b2bOAuthStart:
            return try await startOAuth(request, b2b: route == Self.b2bOAuthStart)
        case Self.oauthConsent:
            return try await consentOAuth(request)
        default:
            break
        }

        try checkAppIdentifier(request)
        let sessionToken = try basicAuthSessionToken(request)
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw StytchError.badRequest(error.message) }
        let userAgent = request.header("user-agent") ?? ""

        switch route {
        case Self.sessionsAuthenticate, Self.b2bSessionsAuthenticate:
            guard let sessionToken else { throw StytchError.unauthorized("No session token was sent.") }
            let minutes = try duration(fields, default: nil)
            let b2b = route == Self.b2bSessionsAuthenticate
            return try await success(store.authenticate(token: sessionToken, b2b: b2b, minutes: minutes), requestID: requestID)
        case Self.sessionsRevoke, Self.b2bSessionsRevoke:
            guard let sessionToken else { throw StytchError.unauthorized("No session token was sent.") }
            try await store.revoke(token: sessionToken, b2b: route == Self.b2bSessionsRevoke)
            return .json(["data": .object(["request_id": .string(requestID), "status_code": 200])])
        case Self.passwordsAuthenticate:
            guard let email = fields.nonEmptyString("email") else { throw StytchError.missing("email") }
            guard let password = fields.nonEmptyString("password") else { throw StytchError.missing("password") }
            let minutes = try duration(fields, default: 5)
            let user = try await store.passwordUser(email: email, password: password)
            return try await signIn(
                user, factor: ("password", "knowledge"), minutes: minutes, sessionToken: sessionToken, userAgent: userAgent,
                requestID: requestID)
        case Self.otpsAuthenticate:
            guard let code = fields.nonEmptyString("token") else { throw StytchError.missing("token") }
            guard let methodID = fields.nonEmptyString("method_id") else { throw StytchError.missing("method_id") }
            let minutes = try duration(fields, default: 5)
            let (user, delivery) = try await store.redeemOTP(methodID: methodID, code: code)
            return try await signIn(
                user, factor: ("otp", delivery), minutes: minutes, sessionToken: sessionToken, userAgent: userAgent,
                requestID: requestID)
        case Self.magicLinksAuthenticate:
            guard let token = fields.nonEmptyString("token") else { throw StytchError.missing("token") }
            let minutes = try duration(fields, default: 5)
            let user = try await store.redeemMagicLink(token, codeVerifier: fields.nonEmptyString("code_verifier"))
            return try await signIn(
                user, factor: ("magic_link", "email"), minutes: minutes, sessionToken: sessionToken, userAgent: userAgent,
                requestID: requestID)
        case Self.magicLinksEmailLoginOrCreate:
            guard let email = fields.nonEmptyString("email") else { throw StytchError.missing("email") }
            let challenge = fields.nonEmptyString("code_challenge")
            if challenge != nil, let method = fields.nonEmptyString("code_challenge_method"), method != "S256" {
                throw StytchError.badRequest("code_challenge_method must be S256.")
            }
            let minutes = fields.integerOrNumericString("login_expiration_minutes") ?? 60
            let (user, created) = try await store.sendMagicLink(
                email: email, lifetime: TimeInterval(min(max(minutes, 5), 10_080)) * 60,
                codeChallenge: challenge)
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "user_id": .string(user.userID),
                    "email_id": .string(user.emailID), "user_created": .bool(created),
                ])
            ])
        case Self.b2bPasswordsAuthenticate:
            guard let organizationID = fields.nonEmptyString("organization_id") else { throw StytchError.missing("organization_id") }
            guard let email = fields.nonEmptyString("email_address") else { throw StytchError.missing("email_address") }
            guard let password = fields.nonEmptyString("password") else { throw StytchError.missing("password") }
            let minutes = try duration(fields, default: 5)
            let member = try await store.passwordMember(organizationID: organizationID, email: email, password: password)
            let factor = StytchStore.Factor(
                type: "password", deliveryMethod: "knowledge", lastAuthenticatedAt: clock.now,
                emailID: member.emailID, email: member.email)
            switch try await store.startMemberSession(
                member: member, factor: factor, minutes: minutes ?? 5, existingToken: sessionToken,
                userAgent: userAgent)
            {
            case .session(let authenticated): return try await success(authenticated, requestID: requestID)
            case .mfaRequired(let intermediate): return intermediateResponse(intermediate, requestID: requestID)
            }
        case Self.oauthAuthenticate, Self.b2bOAuthAuthenticate:
            return try await authenticateOAuth(
                fields, b2b: route == Self.b2bOAuthAuthenticate, sessionToken: sessionToken, userAgent: userAgent,
                requestID: requestID)
        default:
            if let response = try await handleOTPSend(route, fields: fields, requestID: requestID) { return response }
            return try await handleB2B(route, fields: fields, userAgent: userAgent, requestID: requestID) ?? notFound(request)
        }
    }

    /// Signs a consumer user in with one factor (type, delivery method): a new session, or
    /// the caller's current one with the factor added.
    private func signIn(
        _ user: StytchStore.User, factor: (type: String, delivery: String), minutes: Int?, sessionToken: String?,
        userAgent: String, requestID: String
    ) async throws -> EmulatorResponse {
        let factor = StytchStore.Factor(
            type: factor.type, deliveryMethod: factor.delivery, lastAuthenticatedAt: clock.now,
            emailID: user.emailID, email: user.email)
        return try await success(
            store.startSession(
                user: user, factor: factor, minutes: minutes ?? 5, existingToken: sessionToken,
                userAgent: userAgent), requestID: requestID)
    }

    /// The session token from `Authorization: Basic base64(public_token:session_token)`:
    /// nil when the public token stands in for it. A missing header, malformed
    /// credentials or another project's public token are `unauthorized_credentials`.
    private func basicAuthSessionToken(_ request: EmulatorRequest) throws(StytchError) -> String? {
        guard let header = request.header("authorization") else { throw .unauthorized("The Authorization header is missing.") }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let credentials = String(data: data, encoding: .utf8), let colon = credentials.firstIndex(of: ":")
        else { throw .unauthorized("The Authorization header is not valid Basic authentication.") }
        let publicToken = String(credentials[..<colon]), secret = String(credentials[credentials.index(after: colon)...])
        guard constantTimeEquals(publicToken, seed.publicToken) else {
            throw .unauthorized("The public token is not valid for this project.")
        }
        return secret.isEmpty || secret == publicToken ? nil : secret
    }

    /// An SDK request's `app.identifier` (in the base64 JSON of `X-SDK-Client`) must be
    /// one of the project's Authorized environments, or every request is refused. A
    /// request without the header is not an SDK's (the web SDK is checked by origin,
    /// which the emulator does not model) and passes.
    private func checkAppIdentifier(_ request: EmulatorRequest) throws(StytchError) {
        guard let header = request.header("x-sdk-client") else { return }
        guard let data = Data(base64Encoded: header), let value = try? JSONValue.parse(bytes: Array(data)),
            let identifier = value["app"]?["identifier"]?.stringValue, seed.authorizedAppIdentifiers.contains(identifier)
        else { throw .invalidMobileIdentifier }
    }

    /// `session_duration_minutes`: `defaultMinutes` when absent; out of range or not an
    /// integer is `invalid_session_duration`.
    func duration(_ fields: JSONObject, default defaultMinutes: Int?) throws(StytchError) -> Int? {
        guard let value = fields["session_duration_minutes"], value != .null else { return defaultMinutes }
        guard let minutes = fields.integerOrNumericString("session_duration_minutes"), Self.durationRange.contains(minutes) else {
            throw .invalidDuration
        }
        return minutes
    }
}
