import Foundation
import LatchkeyCrypto
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// The Auth0 Authentication API over real HTTP: every grant, rotation and reuse
/// detection, PKCE, the device flow, userinfo, revoke, discovery and JWKS.
@Suite struct Auth0EmulatorTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    let http = EmulatorHTTP.shared

    private func withAuth0(_ seed: Auth0Seed = .standard, _ body: (Emulator, Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: seed), clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.auth0))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func token(_ auth0: Auth0Endpoint, _ fields: JSONObject) async throws -> EmulatorHTTP.Reply {
        var body = fields
        if body["client_id"] == nil { body["client_id"] = .string(auth0.clientID) }
        return try await http.send("POST", auth0.baseURL.appending(path: "oauth/token"), json: body)
    }

    private func passwordRealm(_ auth0: Auth0Endpoint, scope: String = "openid profile email offline_access") async throws -> JSONObject {
        let reply = try await token(
            auth0,
            [
                "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": "alice@example.com",
                "password": "alice-password-1", "realm": .string(auth0.connection), "scope": .string(scope),
            ])
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.object()
    }

    private func refresh(_ auth0: Auth0Endpoint, _ refreshToken: String) async throws -> EmulatorHTTP.Reply {
        try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
    }

    private func keys(_ auth0: Auth0Endpoint) async throws -> JWKSet {
        try JWKSet(json: Array(try await http.send("GET", auth0.jwksURL).body))
    }

    @Test func passwordRealmIssuesTokensWithTheDocumentedClaims() async throws {
        try await withAuth0 { emulator, auth0 in
            let body = try await passwordRealm(auth0)
            #expect(
                shape(.object(body))
                    == (try golden(
                        #"{"access_token":"string","refresh_token":"string","id_token":"string","scope":"string","expires_in":"number","token_type":"string"}"#
                    )))
            #expect(body["token_type"] == "Bearer")
            #expect(body["expires_in"] == 86_400)
            #expect(auth0.issuer.hasSuffix("/"))
            let idToken = try #require(body["id_token"]?.stringValue)
            let jwt = try JWT.verify(
                idToken, keys: try await keys(auth0),
                options: JWTValidationOptions(
                    issuer: auth0.issuer, audience: auth0.clientID, now: { emulator.control.now }))
            #expect(jwt.header.algorithm == .rs256)
            #expect(jwt.header.keyID != nil)
            #expect(jwt.claims.subject == "auth0|alice")
            #expect(jwt.claims["azp"]?.stringValue == auth0.clientID)
            #expect(jwt.claims["auth_time"] == .number(Self.start.timeIntervalSince1970))
            #expect(jwt.claims["email"] == "alice@example.com")
            #expect(jwt.claims["name"] == "Alice Liddell")
            #expect(jwt.claims["nonce"] == nil)

            // The same grant as a form, without offline_access: no refresh token.
            let form = try await http.send(
                "POST", auth0.baseURL.appending(path: "oauth/token"),
                form: [
                    ("grant_type", "password"), ("client_id", auth0.clientID), ("username", "alice@example.com"), ("password", "alice-password-1"),
                    ("scope", "openid"),
                ])
            #expect(form.status == 200, "\(form.text)")
            #expect(try form.object().names == ["access_token", "id_token", "scope", "expires_in", "token_type"])
            #expect(form.header("cache-control") == "no-store")
        }
    }

    @Test func audienceGetsAJWTAccessTokenAndUserinfoAnswers() async throws {
        try await withAuth0 { emulator, auth0 in
            let reply = try await token(
                auth0,
                [
                    "grant_type": "password", "username": "alice@example.com", "password": "alice-password-1",
                    "audience": "https://api.example.com", "scope": "openid email",
                ])
            let access = try #require(try reply.object()["access_token"]?.stringValue)
            let jwt = try JWT.verify(
                access, keys: try await keys(auth0),
                options: JWTValidationOptions(
                    issuer: auth0.issuer, audience: "https://api.example.com", now: { emulator.control.now }))
            #expect(jwt.claims.audience == ["https://api.example.com", auth0.issuer + "userinfo"])
            let info = try await http.send("GET", auth0.baseURL.appending(path: "userinfo"), headers: ["Authorization": "Bearer \(access)"])
            #expect(info.status == 200)
            #expect(try info.object().names == ["sub", "email", "email_verified"])

            let opaque = try await passwordRealm(auth0)["access_token"]?.stringValue ?? ""
            let profile = try await http.send("GET", auth0.baseURL.appending(path: "userinfo"), headers: ["Authorization": "Bearer \(opaque)"])
            #expect(
                shape(try profile.json())
                    == (try golden(
                        #"{"sub":"string","nickname":"string","name":"string","picture":"string","updated_at":"string","email":"string","email_verified":"bool"}"#
                    )))
            // Expired access tokens (emulator clock) and garbage are 401 with WWW-Authenticate.
            try await emulator.control.expireSessions(of: "auth0|alice", provider: .auth0)
            for bearer in [opaque, "garbage"] {
                let refused = try await http.send("GET", auth0.baseURL.appending(path: "userinfo"), headers: ["Authorization": "Bearer \(bearer)"])
                // Auth0 answers plain text; the reason is in the Bearer challenge only.
                #expect(refused.status == 401)
                #expect(refused.text == "Unauthorized")
                #expect(refused.header("content-type")?.hasPrefix("text/plain") == true)
                #expect(refused.header("www-authenticate")?.hasPrefix("Bearer realm=") == true)
                #expect(refused.header("www-authenticate")?.contains(#"error="invalid_token""#) == true)
                #expect((try? refused.object()) == nil)
            }
            #expect(try await http.send("GET", auth0.baseURL.appending(path: "userinfo")).status == 401)
        }
    }

    @Test func refreshRotatesAndReuseRevokesTheFamily() async throws {
        try await withAuth0 { emulator, auth0 in
            let first = try #require(try await passwordRealm(auth0)["refresh_token"]?.stringValue)
            let rotated = try await refresh(auth0, first)
            #expect(rotated.status == 200)
            let body = try rotated.object()
            #expect(body.names == ["access_token", "refresh_token", "id_token", "scope", "expires_in", "token_type"])
            let second = try #require(body["refresh_token"]?.stringValue)
            #expect(second != first)
            let idToken = try JWT.decode(try #require(body["id_token"]?.stringValue))
            #expect(idToken.claims["auth_time"] == .number(Self.start.timeIntervalSince1970))

            // Reusing the spent token: 403 invalid_grant, and the whole family is revoked.
            let reuse = try await refresh(auth0, first)
            #expect(reuse.status == 403)
            #expect(try reuse.object() == ["error": "invalid_grant", "error_description": "Unknown or invalid refresh token."])
            let afterReuse = try await refresh(auth0, second)
            #expect(afterReuse.status == 403)
            #expect(try afterReuse.object()["error"] == "invalid_grant")
            #expect(await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "refresh_token") == 3)
            // The tenant's record of the family survives the revocation (the soak and the
            // kill tests judge a stored token by it), in-process and over the control API.
            let spent = try await emulator.control.auth0RefreshTokenStatus(first)
            #expect(spent.known && spent.spent && !spent.newest && spent.familyRevoked && spent.issuedInFamily == 2)
            let newest = try await emulator.control.auth0RefreshTokenStatus(second)
            #expect(newest.known && newest.newest && !newest.spent && newest.familyID == spent.familyID)
            #expect(try await emulator.control.auth0RefreshTokenStatus("nope") == Auth0RefreshTokenStatus(known: false))
            let control = auth0.baseURL.appending(path: "__emulator/auth0/refresh-tokens/status")
            let overHTTP = try await http.send("POST", control, json: ["refresh_token": .string(second)]).object()
            #expect(overHTTP["newest"] == .bool(true) && overHTTP["family_revoked"] == .bool(true) && overHTTP["issued_in_family"] == 2)
            #expect(try await http.send("POST", control, json: [:]).status == 400)

            // A refresh token expires on the emulator clock (30 days absolute).
            let fresh = try #require(try await passwordRealm(auth0)["refresh_token"]?.stringValue)
            emulator.control.advanceClock(by: 2_592_001)
            #expect(try await refresh(auth0, fresh).status == 403)
            // Missing and unknown tokens.
            #expect(try await token(auth0, ["grant_type": "refresh_token"]).status == 400)
            #expect(try await refresh(auth0, "nope").status == 403)
        }
    }

    @Test func withoutRotationTheRefreshTokenStays() async throws {
        var seed = Auth0Seed.standard
        seed.rotateRefreshTokens = false
        try await withAuth0(seed) { _, auth0 in
            let refreshToken = try #require(try await passwordRealm(auth0)["refresh_token"]?.stringValue)
            for _ in 0..<3 {
                let reply = try await refresh(auth0, refreshToken)
                #expect(reply.status == 200)
                #expect(try reply.object()["refresh_token"] == nil)
            }
        }
    }

    @Test func revokeEndsARefreshFamilyAndAlwaysAnswers200() async throws {
        try await withAuth0 { _, auth0 in
            let refreshToken = try #require(try await passwordRealm(auth0)["refresh_token"]?.stringValue)
            let revokeURL = auth0.baseURL.appending(path: "oauth/revoke")
            let revoked = try await http.send("POST", revokeURL, json: ["client_id": .string(auth0.clientID), "token": .string(refreshToken)])
            #expect(revoked.status == 200)
            #expect(revoked.body.isEmpty)
            #expect(try await refresh(auth0, refreshToken).status == 403)
            #expect(try await http.send("POST", revokeURL, json: ["client_id": .string(auth0.clientID), "token": "already-invalid"]).status == 200)
            #expect(try await http.send("POST", revokeURL, json: ["client_id": .string(auth0.clientID)]).status == 400)
            #expect(try await http.send("POST", revokeURL, json: ["client_id": "other", "token": "x"]).status == 401)
        }
    }

    @Test func errorsAreAuth0ErrorsNeverServerErrors() async throws {
        try await withAuth0 { emulator, auth0 in
            let realm = "http://auth0.com/oauth/grant-type/password-realm"
            let cases: [(JSONObject, Int, String)] = [
                ([:], 400, "invalid_request"),
                (["grant_type": "password"], 400, "invalid_request"),
                (["grant_type": "password", "client_id": "someone-else", "username": "a", "password": "b"], 401, "invalid_client"),
                (["grant_type": "client_credentials"], 403, "unauthorized_client"),
                (
                    ["grant_type": .string(realm), "username": "alice@example.com", "password": "wrong", "realm": .string(auth0.connection)], 403,
                    "invalid_grant"
                ),
                (["grant_type": .string(realm), "username": "alice@example.com", "password": "alice-password-1"], 400, "invalid_request"),
                (
                    ["grant_type": .string(realm), "username": "alice@example.com", "password": "alice-password-1", "realm": "other"], 400,
                    "invalid_request"
                ),
                (["grant_type": "authorization_code"], 400, "invalid_request"),
                (["grant_type": "authorization_code", "code": "nope"], 403, "invalid_grant"),
                (["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "nope"], 403, "invalid_grant"),
            ]
            for (fields, status, error) in cases {
                let reply = try await token(auth0, fields)
                #expect(reply.status == status, "\(fields): \(reply.text)")
                #expect(try reply.object().names == ["error", "error_description"])
                #expect(try reply.object()["error"]?.stringValue == error, "\(fields)")
            }
            let notJSON = try await http.send("POST", auth0.baseURL.appending(path: "oauth/token"), body: Data("{".utf8))
            #expect(notJSON.status == 400)

            let mfa = try await token(auth0, ["grant_type": "password", "username": "mfa@example.com", "password": "mfa-password-1"])
            #expect(mfa.status == 403)
            #expect(
                shape(try mfa.json())
                    == (try golden(
                        #"{"error":"string","error_description":"string","mfa_token":"string","mfa_requirements":{"challenge":[{"type":"string"}]}}"#))
            )
            #expect(try mfa.object()["error"] == "mfa_required")

            try await emulator.control.banUser("auth0|alice", provider: .auth0)
            let blocked = try await token(auth0, ["grant_type": "password", "username": "alice@example.com", "password": "alice-password-1"])
            #expect(blocked.status == 401)
            #expect(try blocked.object()["error_description"] == "user is blocked")

            let missing = try await http.send("GET", auth0.baseURL.appending(path: "nope"))
            #expect(missing.status == 404)
            #expect(try missing.object().names == ["error", "error_description"])
        }
    }

    @Test func authorizationCodeWithPKCE() async throws {
        try await withAuth0 { emulator, auth0 in
            let verifier = Base64URL.encode((0..<32).map { UInt8($0) })
            let challenge = Base64URL.encode(try #require(Self.sha256(verifier)))
            let redirectURI = Auth0Seed.defaultCallbackURL
            func authorize(_ extra: [URLQueryItem] = [], method: String = "S256") async throws -> EmulatorHTTP.Reply {
                var components = try #require(URLComponents(url: auth0.baseURL.appending(path: "authorize"), resolvingAgainstBaseURL: false))
                components.queryItems =
                    [
                        URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: auth0.clientID),
                        URLQueryItem(name: "redirect_uri", value: redirectURI),
                        URLQueryItem(name: "scope", value: "openid profile email offline_access"),
                        URLQueryItem(name: "state", value: "state-123"), URLQueryItem(name: "nonce", value: "nonce-456"),
                        URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: method),
                        URLQueryItem(name: "login_hint", value: "alice@example.com"),
                    ] + extra
                return try await http.send("GET", try #require(components.url))
            }
            func code(_ reply: EmulatorHTTP.Reply) throws -> String {
                let location = try #require(reply.header("location"))
                #expect(location.hasPrefix(redirectURI + "?"))
                let items = URLComponents(string: location)?.queryItems ?? []
                #expect(items.first { $0.name == "state" }?.value == "state-123")
                return try #require(items.first { $0.name == "code" }?.value)
            }

            let redirect = try await authorize()
            #expect(redirect.status == 302)
            let first = try code(redirect)
            let exchange: JSONObject = [
                "grant_type": "authorization_code", "code": .string(first), "code_verifier": .string(verifier),
                "redirect_uri": .string(redirectURI),
            ]
            let tokens = try await token(auth0, exchange)
            #expect(tokens.status == 200, "\(tokens.text)")
            let idToken = try JWT.verify(
                try #require(try tokens.object()["id_token"]?.stringValue), keys: try await keys(auth0),
                options: JWTValidationOptions(issuer: auth0.issuer, audience: auth0.clientID, now: { emulator.control.now }))
            #expect(idToken.claims["nonce"] == "nonce-456")
            #expect(idToken.claims["auth_time"] != nil)
            #expect(try tokens.object()["refresh_token"] != nil)
            // A code works once.
            #expect(try await token(auth0, exchange).status == 403)

            // A wrong verifier, or none, is refused.
            for verifierField: JSONValue? in [.string(Base64URL.encode((0..<32).map { UInt8(255 - $0) })), nil] {
                var fields = exchange
                fields["code"] = .string(try code(try await authorize()))
                fields["code_verifier"] = verifierField
                let refused = try await token(auth0, fields)
                #expect(refused.status == 403)
                #expect(try refused.object()["error_description"] == "Failed to verify code verifier")
            }
            // login_hint picks the user; plain challenges and unknown clients are refused.
            var hinted = exchange
            hinted["code"] = .string(try code(try await authorize([URLQueryItem(name: "login_hint", value: "mfa@example.com")])))
            let hintedTokens = try await token(auth0, hinted)
            #expect(try JWT.decode(try #require(try hintedTokens.object()["id_token"]?.stringValue)).claims.subject == "auth0|mfa")
            let plain = try await authorize(method: "plain")
            #expect(plain.status == 400)
            #expect(try plain.object()["error"] == "invalid_request")
        }
    }

    @Test func deviceFlowPendingSlowDownApprovedDeniedExpired() async throws {
        try await withAuth0 { emulator, auth0 in
            let start = try await http.send(
                "POST", auth0.baseURL.appending(path: "oauth/device/code"),
                json: ["client_id": .string(auth0.clientID), "scope": "openid offline_access"])
            #expect(start.status == 200)
            let device = try start.object()
            #expect(
                shape(.object(device))
                    == (try golden(
                        """
                        {"device_code":"string","user_code":"string","verification_uri":"string","verification_uri_complete":"string","expires_in":"number","interval":"number"}
                        """)))
            #expect(device["interval"] == 5)
            let deviceCode = try #require(device["device_code"]?.stringValue)
            func poll() async throws -> EmulatorHTTP.Reply {
                try await token(auth0, ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": .string(deviceCode)])
            }
            #expect(try await poll().object()["error"] == "authorization_pending")
            let tooSoon = try await poll()
            #expect(tooSoon.status == 429)
            #expect(try tooSoon.object()["error"] == "slow_down")
            emulator.control.advanceClock(by: 10)  // the interval is now 10 s
            let second = try await poll()
            #expect(second.status == 403)
            #expect(try second.object()["error"] == "authorization_pending")
            emulator.control.advanceClock(by: 10)
            let approved = try await poll()  // the third counted poll: approved for the first user
            #expect(approved.status == 200, "\(approved.text)")
            #expect(try approved.object()["refresh_token"] != nil)
            #expect(try await poll().status == 403)  // the code is spent

            func startDevice() async throws -> JSONObject {
                try await http.send("POST", auth0.baseURL.appending(path: "oauth/device/code"), json: ["client_id": .string(auth0.clientID)]).object()
            }
            let denied = try await startDevice()
            try await emulator.control.denyDevice(userCode: try #require(denied["user_code"]?.stringValue))
            let deniedPoll = try await token(
                auth0,
                [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "device_code": .string(try #require(denied["device_code"]?.stringValue)),
                ])
            #expect(try deniedPoll.object()["error"] == "access_denied")

            let manual = try await startDevice()
            try await emulator.control.approveDevice(userCode: try #require(manual["user_code"]?.stringValue), as: "auth0|mfa")
            let manualPoll = try await token(
                auth0,
                [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "device_code": .string(try #require(manual["device_code"]?.stringValue)),
                ])
            #expect(try JWT.decode(try #require(try manualPoll.object()["id_token"]?.stringValue)).claims.subject == "auth0|mfa")

            let late = try await startDevice()
            emulator.control.advanceClock(by: 901)
            let expired = try await token(
                auth0,
                [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "device_code": .string(try #require(late["device_code"]?.stringValue)),
                ])
            #expect(expired.status == 403)
            #expect(try expired.object()["error"] == "expired_token")
            await #expect(throws: EmulatorError.unknownUserCode) { try await emulator.control.denyDevice(userCode: "NOPE-NOPE") }
        }
    }

    /// Auth0's issuer is `https://{domain}/` whatever URL the tokens were fetched from: an
    /// SDK that checks `iss` against the URL it talks to (a proxy, this emulator) fails.
    @Test func tokensAreIssuedByTheDomainNotTheURLTheyCameFrom() async throws {
        var seed = Auth0Seed.standard
        seed.domain = "tenant.emulator.example"
        try await withAuth0(seed) { emulator, auth0 in
            #expect(auth0.domain == "tenant.emulator.example")
            #expect(auth0.issuer == "https://tenant.emulator.example/")
            #expect(auth0.baseURL.scheme == "http")
            let body = try await passwordRealm(auth0)
            let idToken = try JWT.decode(try #require(body["id_token"]?.stringValue))
            #expect(idToken.claims.issuer == "https://tenant.emulator.example/")
            #expect(idToken.claims.issuer != auth0.baseURL.absoluteString)
            let discovery = try await http.send("GET", auth0.discoveryURL).object()
            #expect(discovery["issuer"]?.stringValue == "https://tenant.emulator.example/")
        }
        // Without a seeded domain it is the emulator's host and port — still https.
        try await withAuth0 { _, auth0 in
            #expect(auth0.issuer == "https://\(auth0.domain)/")
            #expect(auth0.issuer != auth0.baseURL.absoluteString)
        }
    }

    @Test func discoveryAndJWKSRotation() async throws {
        try await withAuth0 { emulator, auth0 in
            let discovery = try await http.send("GET", auth0.discoveryURL).object()
            #expect(discovery["issuer"]?.stringValue == auth0.issuer)
            #expect(discovery["jwks_uri"]?.stringValue == auth0.jwksURL.absoluteString)
            #expect(discovery["token_endpoint"]?.stringValue == auth0.baseURL.absoluteString + "oauth/token")
            #expect(discovery["device_authorization_endpoint"]?.stringValue == auth0.baseURL.absoluteString + "oauth/device/code")
            let before = try #require(try await passwordRealm(auth0)["id_token"]?.stringValue)
            let kid = try await emulator.control.rotateSigningKeys(.auth0)
            let after = try #require(try await passwordRealm(auth0)["id_token"]?.stringValue)
            #expect(try JWT.decode(after).header.keyID == kid)
            let set = try await keys(auth0)
            #expect(set.keys.count == 2)
            let options = JWTValidationOptions(now: { emulator.control.now })
            _ = try JWT.verify(before, keys: set, options: options)
            _ = try JWT.verify(after, keys: set, options: options)
            let jwks = try await http.send("GET", auth0.jwksURL).object()
            #expect(jwks.names == ["keys"])
            #expect(jwks["keys"]?.arrayValue?.first?.objectValue?.names == ["kty", "n", "e", "kid", "alg", "use"])
        }
    }

    static func sha256(_ text: String) -> [UInt8]? {
        HashAlgorithm.sha256.hash(Array(text.utf8))
    }
}
