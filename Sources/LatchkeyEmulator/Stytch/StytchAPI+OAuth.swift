import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// OAuth through Stytch, as the SDKs drive it: the browser opens the start URL
/// (`/v1/public/oauth/{provider}/start`, B2B `/v1/b2b/public/oauth/{provider}/start`) with
/// the public token, the redirect URLs and a PKCE challenge; the provider asks for consent
/// (here the emulated provider's page); Stytch redirects to the login redirect URL with
/// `stytch_token_type=oauth&token=…`; the app exchanges the token with the verifier at
/// `oauth/authenticate` (B2B `b2b/oauth/authenticate`).
extension StytchAPI {
    static let oauthStart = EmulatorRoute(.stytch, "GET", "/v1/public/oauth/{provider}/start")
    static let b2bOAuthStart = EmulatorRoute(.stytch, "GET", "/v1/b2b/public/oauth/{provider}/start")
    /// Not Stytch's: the emulated identity provider's consent form.
    static let oauthConsent = EmulatorRoute(.stytch, "POST", "/__oauth_provider/consent")
    static let oauthAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/oauth/authenticate")
    static let b2bOAuthAuthenticate = EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/oauth/authenticate")

    static let oauthRoutes = [oauthStart, b2bOAuthStart, oauthConsent, oauthAuthenticate, b2bOAuthAuthenticate]

    /// The OAuth routes of `request`, or `nil`.
    func matchOAuth(_ request: EmulatorRequest) -> EmulatorRoute? {
        switch (request.method, request.segments) {
        case ("GET", let path) where path.count == 5 && path[0] == "v1" && path[1] == "public" && path[2] == "oauth" && path[4] == "start":
            Self.oauthStart
        case ("GET", let path) where path.count == 6 && path.starts(with: ["v1", "b2b", "public", "oauth"]) && path[5] == "start":
            Self.b2bOAuthStart
        case ("POST", ["__oauth_provider", "consent"]): Self.oauthConsent
        case ("POST", ["sdk", "v1", "oauth", "authenticate"]): Self.oauthAuthenticate
        case ("POST", ["sdk", "v1", "b2b", "oauth", "authenticate"]): Self.b2bOAuthAuthenticate
        default: nil
        }
    }

    /// A start: checks the public token, the provider, the redirect URLs (each one of the
    /// project's Redirect URLs) and the challenge, then shows the provider's consent page.
    func startOAuth(_ request: EmulatorRequest, b2b: Bool) async throws -> EmulatorResponse {
        let query = request.query
        guard let publicToken = query["public_token"], constantTimeEquals(publicToken, seed.publicToken) else {
            throw StytchError.unauthorized("The public token is not valid for this project.")
        }
        let provider = request.segments[b2b ? 4 : 3]
        guard (seed.oauthProviders ?? ["google", "github", "microsoft"]).contains(provider) else {
            throw StytchError(
                status: 400, type: "oauth_provider_not_configured", message: "OAuth provider \(provider) is not configured for this project.")
        }
        let allowed = seed.redirectURLs ?? [StytchSeed.defaultRedirectURL]
        let login = query["login_redirect_url"] ?? allowed.first ?? ""
        let signup = query["signup_redirect_url"] ?? allowed.first ?? ""
        for (name, url) in [("login", login), ("signup", signup)] where !Self.matches(url, allowed) {
            throw StytchError(
                status: 400, type: "no_match_for_provided_\(name)_redirect_url",
                message: "The \(name) redirect URL \(url) does not match any Redirect URL of the project.")
        }
        let challenge = query[b2b ? "pkce_code_challenge" : "code_challenge"]
        if let challenge, Base64URL.decode(challenge)?.count != 32 {
            throw StytchError.badRequest("The PKCE code challenge must be base64url(SHA-256(code_verifier)).")
        }
        var organizationID: String?
        if b2b {
            let organization = await store.organization(id: query["organization_id"], slug: query["slug"])
            guard let organization else { throw StytchError.organizationNotFound }
            organizationID = organization.organizationID
        }
        let attempt = StytchStore.OAuthAttempt(
            provider: provider, organizationID: organizationID, loginRedirectURL: login,
            signupRedirectURL: signup, challenge: challenge,
            expiresAt: clock.now.addingTimeInterval(StytchStore.oauthLifetime))
        return Self.consentPage(provider: provider, attemptID: try await store.startOAuth(attempt), message: nil)
    }

    /// The consent form: the account's email approves; an unknown one asks again.
    func consentOAuth(_ request: EmulatorRequest) async throws -> EmulatorResponse {
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw StytchError.badRequest(error.message) }
        let attemptID = fields.nonEmptyString("attempt") ?? ""
        guard let redirect = try await store.consentOAuth(attemptID: attemptID, email: fields.nonEmptyString("email") ?? "") else {
            let provider = await store.oauthAttempt(attemptID)?.provider ?? "oauth"
            return Self.consentPage(provider: provider, attemptID: attemptID, message: "No account with that email address.")
        }
        return .redirect(redirect)
    }

    /// `oauth/authenticate {token, session_duration_minutes, code_verifier}` and
    /// `b2b/oauth/authenticate {oauth_token, session_duration_minutes, pkce_code_verifier,
    /// intermediate_session_token?}`.
    func authenticateOAuth(
        _ fields: JSONObject, b2b: Bool, sessionToken: String?, userAgent: String, requestID: String
    ) async throws -> EmulatorResponse {
        let tokenField = b2b ? "oauth_token" : "token"
        guard let token = fields.nonEmptyString(tokenField) else { throw StytchError.missing(tokenField) }
        let minutes = try duration(fields, default: 5) ?? 5
        let record = try await store.redeemOAuth(token, b2b: b2b, verifier: fields.nonEmptyString(b2b ? "pkce_code_verifier" : "code_verifier"))
        if b2b {
            guard let member = await store.members[record.subjectID], !member.banned else { throw StytchError.oauthTokenNotFound }
            let factor = StytchStore.Factor(
                type: "oauth", deliveryMethod: "oauth_" + record.provider, lastAuthenticatedAt: clock.now,
                emailID: member.emailID, email: member.email)
            switch try await store.startMemberSession(member: member, factor: factor, minutes: minutes, existingToken: nil, userAgent: userAgent) {
            case .session(let authenticated): return try await success(authenticated, requestID: requestID)
            case .mfaRequired(let intermediate): return intermediateResponse(intermediate, requestID: requestID)
            }
        }
        guard let user = await store.user(id: record.subjectID) else { throw StytchError.oauthTokenNotFound }
        let factor = StytchStore.Factor(
            type: "oauth", deliveryMethod: "oauth_" + record.provider, lastAuthenticatedAt: clock.now,
            emailID: user.emailID, email: user.email)
        return try await success(
            store.startSession(user: user, factor: factor, minutes: minutes, existingToken: sessionToken, userAgent: userAgent),
            requestID: requestID)
    }

    /// Whether `url` is one of `allowed`, compared on scheme, host, port and path (its
    /// query is carried back, not matched).
    static func matches(_ url: String, _ allowed: [String]) -> Bool {
        guard var components = URLComponents(string: url), components.scheme != nil, components.host != nil else { return false }
        components.query = nil
        components.fragment = nil
        guard let bare = components.string else { return false }
        return allowed.contains(bare)
    }

    /// The emulated identity provider's page: "Sign in with <provider>", an email, Allow.
    static func consentPage(provider: String, attemptID: String, message: String?) -> EmulatorResponse {
        let name = HTML.escape(provider.prefix(1).uppercased() + provider.dropFirst())
        let error = message.map { #"<p id="error" role="alert">\#(HTML.escape($0))</p>"# } ?? ""
        return HTML.page(
            "Sign in with \(name)",
            """
            <h1 id="consent">Sign in with \(name)</h1>\(error)
            <p>The app would like to sign you in with your \(name) account.</p>
            <form method="post" action="/__oauth_provider/consent">
            <input type="hidden" name="attempt" value="\(HTML.escape(attemptID))">
            <label>Email <input id="email" name="email" type="email" autocomplete="username"></label>
            <button id="allow" type="submit">Allow</button>
            </form>
            """)
    }
}
