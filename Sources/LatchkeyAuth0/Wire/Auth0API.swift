internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// The Authentication API calls the adapter makes, each answering a parsed success or
/// throwing a classified ``/Latchkey/AuthError`` (network failures stay ``/Latchkey/TransportError``s for
/// the core to classify as transient).
struct Auth0API: Sendable {
    let configuration: Auth0Configuration
    let transport: any HTTPTransport
    let clock: any SessionClock
    /// Paces `/userinfo` within Auth0's per-user limit (shared by copies of this value).
    let userInfoLimit = UserInfoRateLimit()
    /// DPoP, when the application uses it: proofs for token calls and `/userinfo`.
    var dpop: Auth0DPoP? = nil

    /// How long one call may take.
    static let timeout: Duration = .seconds(30)

    /// `POST /oauth/token`, form-encoded. `client_id` (and `client_secret`, when
    /// configured) are added here.
    func token(_ fields: [(String, String)], call: Auth0ErrorResponse.Call) async throws -> TokenResponse {
        var all = [("client_id", configuration.clientID)] + fields
        if let secret = configuration.clientSecret { all.append(("client_secret", secret)) }
        let response = try await post("oauth/token", all, signing: call)
        guard response.status == 200 else { throw Auth0ErrorResponse(response).classified(call, now: clock.now) }
        guard let object = JSONObject.parsing(response.body), let tokens = TokenResponse(object) else {
            throw AuthError(.transient, "Auth0 answered the \(call.rawValue) with a body that is not a token answer", httpStatus: response.status)
        }
        for (name, token) in [("access_token", tokens.accessToken), ("refresh_token", tokens.refreshToken), ("id_token", tokens.idToken)] {
            if let token { try BearerTokenSyntax.check(token, what: "the \(name) of Auth0's \(call.rawValue) answer") }
        }
        return tokens
    }

    /// `POST /oauth/device/code`.
    func deviceCode(scope: String, audience: String?) async throws -> DeviceCodeResponse {
        var fields = [("client_id", configuration.clientID), ("scope", scope)]
        if let audience { fields.append(("audience", audience)) }
        if let organization = configuration.organization { fields.append(("organization", organization)) }
        let response = try await post("oauth/device/code", fields)
        guard response.status == 200 else {
            throw Auth0ErrorResponse(response).classified(.deviceCode, now: clock.now)
        }
        guard let object = JSONObject.parsing(response.body), let device = DeviceCodeResponse(object) else {
            throw AuthError(.transient, "Auth0 answered the device authorization with a malformed body", httpStatus: response.status)
        }
        return device
    }

    /// `GET /userinfo` with the access token: the user's OIDC claims. Within Auth0's
    /// rate limit for `user` (their ID; empty when not known yet): a call that would
    /// exceed it is not sent and throws ``/Latchkey/AuthError/Code/rateLimited`` with the wait.
    /// A DPoP-bound token goes with its proof.
    func userInfo(accessToken: String, user: String, dpopBound: Bool = false) async throws -> JSONObject {
        try await userInfoLimit.take(for: user, now: clock.now)
        var request = TransportRequest(url: configuration.endpoint("userinfo"), timeout: Self.timeout, operation: "auth0 userinfo")
        request.headers["Accept"] = "application/json"
        let response = try await sendAuthorized(request, accessToken: accessToken, dpopBound: dpopBound)
        let now = clock.now
        let error = response.status == 200 ? nil : Auth0ErrorResponse(response)
        let remaining = response.headers["x-ratelimit-remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        await userInfoLimit.record(for: user, status: response.status, remaining: remaining, retryAfter: error?.retryAfter, now: now)
        if let error { throw error.classified(.userInfo, now: now) }
        guard let object = JSONObject.parsing(response.body), object.nonEmptyString("sub") != nil else {
            throw AuthError(.transient, "Auth0 answered the session check with a malformed body", httpStatus: response.status)
        }
        return object
    }

    /// `POST /oauth/revoke`. A token Auth0 already considers invalid is gone too.
    func revoke(refreshToken: String) async throws {
        var fields = [("client_id", configuration.clientID), ("token", refreshToken)]
        if let secret = configuration.clientSecret { fields.append(("client_secret", secret)) }
        let response = try await post("oauth/revoke", fields, signing: .revoke)
        if response.status == 200 { return }
        let error = Auth0ErrorResponse(response)
        if error.code == "invalid_grant" { return }
        throw error.classified(.revoke, now: clock.now)
    }

    /// The cache of Auth0's signing keys, `GET /.well-known/jwks.json` through the core's
    /// one JWKS fetcher. A refused fetch is transient: the cache keeps its last good set
    /// and tries again later.
    func jwksCache() -> JWKSCache {
        JWKSCache.fetchingOrRefusing(
            from: configuration.endpoint(".well-known/jwks.json"), transport: transport, clock: clock,
            timeout: Self.timeout
        ) { response in
            AuthError(.transient, "Auth0 answered HTTP \(response.status) for its signing keys", httpStatus: response.status)
        }
    }

    /// - Parameter call: for token and revocation calls, which DPoP proof they carry.
    /// - Parameter path: a fixed path (`oauth/token`): it names the operation in telemetry.
    private func post(
        _ path: StaticString, _ fields: [(String, String)], signing call: Auth0ErrorResponse.Call? = nil
    ) async throws -> TransportResponse {
        let body = Data(FormBody.encode(fields).utf8)
        let request = TransportRequest(
            method: "POST", url: configuration.endpoint(path.description),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: body, timeout: Self.timeout, operation: "auth0 \(path)")
        if let call { return try await sendSigned(request, call: call) }
        return try await transport.send(request)
    }
}
