import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// The Stytch SDK API over real HTTP: sessions, passwords, OTPs, magic links, B2B, JWTs
/// and JWKS, Basic auth and validation.
@Suite struct StytchEmulatorTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    let http = EmulatorHTTP.shared

    private func withStytch(_ body: (Emulator, StytchEndpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch], clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.stytch))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func basic(_ stytch: StytchEndpoint, _ session: String? = nil) -> [String: String] {
        ["Authorization": "Basic " + Data("\(stytch.publicToken):\(session ?? stytch.publicToken)".utf8).base64EncodedString()]
    }

    private func post(_ stytch: StytchEndpoint, _ path: String, session: String? = nil, _ body: JSONObject = [:]) async throws -> EmulatorHTTP.Reply {
        try await http.send("POST", stytch.sdkBaseURL.appending(path: path), headers: basic(stytch, session), json: body)
    }

    private func login(_ stytch: StytchEndpoint, minutes: Int? = nil) async throws -> JSONValue {
        var body: JSONObject = ["email": "alice@example.com", "password": "alice-password-1"]
        if let minutes { body["session_duration_minutes"] = .number(Double(minutes)) }
        let reply = try await post(stytch, "passwords/authenticate", body)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.json()
    }

    private func jwks(_ url: URL) async throws -> JWKSet {
        let reply = try await http.send("GET", url)
        #expect(reply.status == 200)
        return try JWKSet(json: Array(reply.body))
    }

    @Test func passwordLoginMatchesTheDocumentedShapeAndSignsASessionJWT() async throws {
        try await withStytch { emulator, stytch in
            let body = try await login(stytch, minutes: 60)
            #expect(
                shape(body)
                    == (try golden(
                        """
                        {"data":{"request_id":"string","status_code":"number","user_id":"string","session_token":"string","session_jwt":"string",
                         "session":{"session_id":"string","user_id":"string","started_at":"string","last_accessed_at":"string","expires_at":"string",
                           "attributes":{"ip_address":"string","user_agent":"string"},
                           "authentication_factors":[{"type":"string","delivery_method":"string","last_authenticated_at":"string",
                             "email_factor":{"email_id":"string","email_address":"string"}}],
                           "custom_claims":{},"roles":["string"]},
                         "user":{"user_id":"string","created_at":"string","status":"string","name":{"first_name":"string","middle_name":"string","last_name":"string"},
                           "emails":[{"email_id":"string","email":"string","verified":"bool"}],"phone_numbers":[],"providers":[],"webauthn_registrations":[],
                           "totps":[],"crypto_wallets":[],"password":{"password_id":"string","requires_reset":"bool"},"trusted_metadata":{},
                           "untrusted_metadata":{},"roles":["string"]}}}
                        """)))
            #expect(body[path: "data.status_code"] == 200)
            #expect(body[path: "data.session.started_at"] == "2027-01-15T08:00:00Z")
            #expect(body[path: "data.session.expires_at"] == "2027-01-15T09:00:00Z")
            #expect(body[path: "data.session.authentication_factors"]?.arrayValue?.first?["type"] == "password")
            #expect(body[path: "data.user.emails"]?.arrayValue?.first?["email"] == "alice@example.com")

            let jwt = try #require(body[path: "data.session_jwt"]?.stringValue)
            let keys = try await jwks(stytch.jwksURL)
            let verified = try JWT.verify(
                jwt, keys: keys,
                options: JWTValidationOptions(
                    issuer: "stytch.com/\(stytch.projectID)", audience: stytch.projectID, now: { emulator.control.now }))
            #expect(verified.header.algorithm == .rs256)
            #expect(verified.header.keyID != nil)
            #expect(verified.claims.subject == body[path: "data.user_id"]?.stringValue)
            #expect(verified.claims.audience == [stytch.projectID])
            let iat = try #require(verified.claims.issuedAt), exp = try #require(verified.claims.expiresAt)
            #expect(exp.timeIntervalSince(iat) == 300)
            #expect(verified.claims.notBefore == iat)
            let session = try #require(verified.claims["https://stytch.com/session"])
            #expect(session["id"] == body[path: "data.session.session_id"])
            #expect(session["expires_at"] == "2027-01-15T09:00:00Z")
            #expect(
                shape(session)
                    == (try golden(
                        """
                        {"id":"string","started_at":"string","last_accessed_at":"string","expires_at":"string","attributes":{"ip_address":"string","user_agent":"string"},
                         "authentication_factors":[{"type":"string","delivery_method":"string","last_authenticated_at":"string","email_factor":{"email_id":"string","email_address":"string"}}],
                         "roles":["string"]}
                        """)))
        }
    }

    @Test func heartbeatChecksWithoutExtendingAndADurationExtends() async throws {
        try await withStytch { emulator, stytch in
            let token = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            emulator.control.advanceClock(by: 120)
            let check = try await post(stytch, "sessions/authenticate", session: token).json()
            #expect(check[path: "data.session.expires_at"] == "2027-01-15T08:05:00Z")
            #expect(check[path: "data.session.last_accessed_at"] == "2027-01-15T08:02:00Z")
            #expect(check[path: "data.session_token"]?.stringValue == token)
            #expect(check[path: "data.session_jwt"]?.stringValue?.isEmpty == false)

            let extended = try await post(stytch, "sessions/authenticate", session: token, ["session_duration_minutes": 30]).json()
            #expect(extended[path: "data.session.expires_at"] == "2027-01-15T08:32:00Z")

            // The session expires on the emulator clock.
            emulator.control.advanceClock(by: 30 * 60)
            let expired = try await post(stytch, "sessions/authenticate", session: token)
            #expect(expired.status == 401)
            #expect(try expired.object()["error_type"] == "unauthorized_credentials")
        }
    }

    @Test func sessionJWTExpiresAfterFiveMinutesWhateverTheSession() async throws {
        try await withStytch { emulator, stytch in
            let body = try await login(stytch, minutes: 600)
            let jwt = try #require(body[path: "data.session_jwt"]?.stringValue)
            let keys = try await jwks(stytch.jwksURL)
            emulator.control.advanceClock(by: 301)
            #expect(throws: JWTError.self) {
                try JWT.verify(jwt, keys: keys, options: JWTValidationOptions(leeway: 0, now: { emulator.control.now }))
            }
            // The session itself lives on: a heartbeat gets a fresh JWT.
            let token = try #require(body[path: "data.session_token"]?.stringValue)
            let fresh = try await post(stytch, "sessions/authenticate", session: token).json()
            let renewed = try #require(fresh[path: "data.session_jwt"]?.stringValue)
            _ = try JWT.verify(renewed, keys: keys, options: JWTValidationOptions(leeway: 0, now: { emulator.control.now }))
        }
    }

    @Test func revokeEndsTheSession() async throws {
        try await withStytch { _, stytch in
            let token = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            let revoked = try await post(stytch, "sessions/revoke", session: token)
            #expect(revoked.status == 200)
            #expect(shape(try revoked.json()) == (try golden(#"{"data":{"request_id":"string","status_code":"number"}}"#)))
            let after = try await post(stytch, "sessions/authenticate", session: token)
            #expect(after.status == 401)
            #expect(try after.object()["error_type"] == "unauthorized_credentials")
            #expect(try await post(stytch, "sessions/revoke", session: token).status == 401)
        }
    }

    @Test func basicAuthIsChecked() async throws {
        try await withStytch { _, stytch in
            let url = stytch.sdkBaseURL.appending(path: "sessions/authenticate")
            let missing = try await http.send("POST", url, json: [:])
            #expect(missing.status == 401)
            #expect(
                shape(try missing.json())
                    == (try golden(
                        #"{"status_code":"number","request_id":"string","error_type":"string","error_message":"string","error_url":"string"}"#)))
            #expect(try missing.object()["error_type"] == "unauthorized_credentials")
            let unknown = try await http.send(
                "POST", url, headers: ["Authorization": "Basic " + Data("public-token-test-nope:x".utf8).base64EncodedString()],
                json: [:])
            #expect(unknown.status == 401)
            #expect(try unknown.object()["error_type"] == "unauthorized_credentials")
            let garbage = try await http.send("POST", url, headers: ["Authorization": "Basic %%%"], json: [:])
            #expect(garbage.status == 401)
            // The public token in place of a session token: there is no session to check.
            let noSession = try await post(stytch, "sessions/authenticate")
            #expect(noSession.status == 401)
            // A wrong public token on a login is refused before the password is looked at.
            let login = try await http.send(
                "POST", stytch.sdkBaseURL.appending(path: "passwords/authenticate"),
                headers: ["Authorization": "Basic " + Data("public-token-test-nope:public-token-test-nope".utf8).base64EncodedString()],
                json: ["email": "alice@example.com", "password": "alice-password-1"])
            #expect(login.status == 401)
        }
    }

    @Test func validationErrorsAreStytchErrorsNeverServerErrors() async throws {
        try await withStytch { _, stytch in
            let cases: [(String, JSONObject?, Data?, Int, String)] = [
                ("passwords/authenticate", ["password": "x"], nil, 400, "bad_request"),
                ("passwords/authenticate", ["email": "alice@example.com"], nil, 400, "bad_request"),
                ("passwords/authenticate", ["email": "alice@example.com", "password": "wrong"], nil, 401, "unauthorized_credentials"),
                ("passwords/authenticate", ["email": "nobody@example.com", "password": "alice-password-1"], nil, 401, "unauthorized_credentials"),
                (
                    "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": 4], nil, 400,
                    "invalid_session_duration"
                ),
                (
                    "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": 527_041],
                    nil,
                    400, "invalid_session_duration"
                ),
                (
                    "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": "ten"], nil,
                    400, "invalid_session_duration"
                ),
                ("passwords/authenticate", nil, Data("{not json".utf8), 400, "bad_request"),
                ("passwords/authenticate", nil, Data("[1,2]".utf8), 400, "bad_request"),
                ("otps/authenticate", ["token": "123456"], nil, 400, "bad_request"),
                ("otps/authenticate", ["token": "123456", "method_id": "email-test-nope"], nil, 404, "otp_code_not_found"),
                ("magic_links/authenticate", [:], nil, 400, "bad_request"),
                ("magic_links/authenticate", ["token": "nope"], nil, 401, "unable_to_auth_magic_link"),
                ("b2b/passwords/authenticate", ["email_address": "bob@acme.example", "password": "bob-password-1"], nil, 400, "bad_request"),
                (
                    "b2b/passwords/authenticate",
                    ["organization_id": "organization-test-nope", "email_address": "bob@acme.example", "password": "x"],
                    nil, 404, "organization_not_found"
                ),
            ]
            for (path, json, raw, status, type) in cases {
                let reply = try await http.send("POST", stytch.sdkBaseURL.appending(path: path), headers: basic(stytch), json: json, body: raw)
                #expect(reply.status == status, "\(path) \(String(describing: json)): \(reply.text)")
                #expect(try reply.object()["error_type"]?.stringValue == type, "\(path): \(reply.text)")
                #expect(try reply.object()["status_code"] == .number(Double(status)))
            }
        }
    }

    @Test func otpAndMagicLinkSignInOnceEach() async throws {
        try await withStytch { emulator, stytch in
            let otp = try await emulator.control.issueStytchOTP(email: "alice@example.com")
            #expect(otp.code.count == 6)
            let wrong = try await post(
                stytch, "otps/authenticate", ["token": otp.code == "000000" ? "111111" : "000000", "method_id": .string(otp.methodID)])
            #expect(wrong.status == 404)
            // A wrong code is refused; the right one still works, once.
            let otp2 = otp
            let signedIn = try await post(
                stytch, "otps/authenticate",
                [
                    "token": .string(otp2.code), "method_id": .string(otp2.methodID),
                    "session_duration_minutes": 10,
                ])
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(try signedIn.json()[path: "data.session.authentication_factors"]?.arrayValue?.first?["type"] == "otp")
            let again = try await post(stytch, "otps/authenticate", ["token": .string(otp2.code), "method_id": .string(otp2.methodID)])
            #expect(again.status == 404)

            // A magic link with the OTP session in Basic auth adds a factor to that session.
            let otpSession = try #require(try signedIn.json()[path: "data.session_token"]?.stringValue)
            let link = try await emulator.control.issueStytchMagicLink(email: "alice@example.com")
            let linked = try await post(stytch, "magic_links/authenticate", session: otpSession, ["token": .string(link)])
            #expect(linked.status == 200)
            let factors = try linked.json()[path: "data.session.authentication_factors"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
            #expect(factors == ["otp", "magic_link"])
            #expect(try linked.json()[path: "data.session_token"]?.stringValue == otpSession)
            #expect(try await post(stytch, "magic_links/authenticate", ["token": .string(link)]).status == 401)

            // Codes expire on the emulator clock.
            let late = try await emulator.control.issueStytchOTP(email: "alice@example.com")
            emulator.control.advanceClock(by: 601)
            #expect(try await post(stytch, "otps/authenticate", ["token": .string(late.code), "method_id": .string(late.methodID)]).status == 404)
        }
    }

    @Test func b2bMemberSessionsAndMFAPendingSignIn() async throws {
        try await withStytch { emulator, stytch in
            let organizationID = emulator.seed.stytch.organizations[0].organizationID
            let reply = try await post(
                stytch, "b2b/passwords/authenticate",
                [
                    "organization_id": .string(organizationID),
                    "email_address": "bob@acme.example", "password": "bob-password-1",
                    "session_duration_minutes": 60,
                ])
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.json()
            let data = try #require(body["data"]?.objectValue)
            #expect(
                data.names == [
                    "request_id", "status_code", "member_id", "member_session", "member", "organization", "session_token",
                    "session_jwt", "member_authenticated", "intermediate_session_token",
                ])
            #expect(
                shape(try #require(data["member_session"]))
                    == (try golden(
                        """
                        {"member_session_id":"string","member_id":"string","organization_id":"string","organization_slug":"string","started_at":"string",
                         "last_accessed_at":"string","expires_at":"string","authentication_factors":[{"type":"string","delivery_method":"string",
                         "last_authenticated_at":"string","email_factor":{"email_id":"string","email_address":"string"}}],"custom_claims":{},"roles":["string"]}
                        """)))
            #expect(body[path: "data.member_session.organization_slug"] == "acme")
            let jwt = try #require(body[path: "data.session_jwt"]?.stringValue)
            let verified = try JWT.verify(jwt, keys: try await jwks(stytch.b2bJWKSURL), options: JWTValidationOptions(now: { emulator.control.now }))
            #expect(verified.claims.subject == "member-test-00000000-0000-4000-8000-000000000b0b")
            #expect(verified.claims["https://stytch.com/organization"] == .object(["organization_id": .string(organizationID), "slug": "acme"]))
            #expect(verified.claims["https://stytch.com/session"]?["id"] == body[path: "data.member_session.member_session_id"])

            let token = try #require(body[path: "data.session_token"]?.stringValue)
            // Consumer and B2B sessions do not mix.
            #expect(try await post(stytch, "sessions/authenticate", session: token).status == 401)
            let checked = try await post(stytch, "b2b/sessions/authenticate", session: token)
            #expect(checked.status == 200)
            #expect(try checked.json()[path: "data.member_session.expires_at"] == body[path: "data.member_session.expires_at"])
            #expect(try await post(stytch, "b2b/sessions/revoke", session: token).status == 200)
            #expect(try await post(stytch, "b2b/sessions/authenticate", session: token).status == 401)

            let carol = try await post(
                stytch, "b2b/passwords/authenticate",
                [
                    "organization_id": .string(organizationID),
                    "email_address": "carol@acme.example", "password": "carol-password-1",
                ])
            #expect(carol.status == 200)
            let pending = try carol.json()
            #expect(pending[path: "data.member_session"] == .null)
            #expect(pending[path: "data.member_authenticated"] == false)
            #expect(pending[path: "data.intermediate_session_token"]?.stringValue?.isEmpty == false)
            #expect(pending[path: "data.session_token"] == "")
        }
    }

    @Test func jwksRotatesWithOverlap() async throws {
        try await withStytch { emulator, stytch in
            let before = try #require(try await login(stytch)[path: "data.session_jwt"]?.stringValue)
            let options = JWTValidationOptions(now: { emulator.control.now })
            let kid1 = try JWT.decode(before).header.keyID
            let kid2 = try await emulator.control.rotateSigningKeys(.stytch)
            let after = try #require(try await login(stytch)[path: "data.session_jwt"]?.stringValue)
            #expect(try JWT.decode(after).header.keyID == kid2)
            let overlap = try await jwks(stytch.jwksURL)
            #expect(overlap.keys.compactMap(\.keyID) == [kid2, kid1].compactMap { $0 })
            _ = try JWT.verify(before, keys: overlap, options: options)
            _ = try JWT.verify(after, keys: overlap, options: options)
            // A second rotation retires the first key.
            let kid3 = try await emulator.control.rotateSigningKeys(.stytch)
            let later = try await jwks(stytch.jwksURL)
            #expect(later.keys.compactMap(\.keyID) == [kid3, kid2])
            #expect(throws: JWTError.self) { try JWT.verify(before, keys: later, options: options) }
            _ = try JWT.verify(after, keys: later, options: options)
            // An unknown project has no key set.
            let unknown = try await http.send("GET", stytch.baseURL.appending(path: "v1/sessions/jwks/project-test-nope"))
            #expect(unknown.status == 404)
        }
    }

    @Test func bannedAndDeletedUsersLoseTheirSessions() async throws {
        try await withStytch { emulator, stytch in
            let userID = emulator.seed.stytch.users[0].userID
            let token = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            try await emulator.control.banUser(userID, provider: .stytch)
            // Ended on the project's side: Stytch's documented 404 `session_not_found`.
            #expect(try await post(stytch, "sessions/authenticate", session: token).status == 404)
            #expect(try await post(stytch, "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1"]).status == 401)
            try await emulator.control.unbanUser(userID, provider: .stytch)
            let again = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            #expect(try await emulator.control.expireSessions(of: userID, provider: .stytch) == 1)
            #expect(try await post(stytch, "sessions/authenticate", session: again).status == 401)
            try await emulator.control.deleteUser(userID, provider: .stytch)
            #expect(try await post(stytch, "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1"]).status == 401)
            await #expect(throws: EmulatorError.unknownUser(userID)) { try await emulator.control.deleteUser(userID, provider: .stytch) }
        }
    }

    /// `GET /__app/session`: the app's API stand-in checks the bearer session JWT and
    /// whether its session is still live.
    @Test func theAppRouteChecksTheBearerSessionJWTAndTheSession() async throws {
        try await withStytch { emulator, stytch in
            let body = try await login(stytch, minutes: 60)
            let jwt = try #require(body[path: "data.session_jwt"]?.stringValue)
            let app = stytch.baseURL.appending(path: "__app/session")
            let ok = try await http.send("GET", app, headers: ["Authorization": "Bearer \(jwt)"])
            #expect(ok.status == 200, "\(ok.text)")
            #expect(try ok.json()["sub"]?.stringValue == emulator.seed.stytch.users[0].userID)
            #expect(try await http.send("GET", app).status == 401)
            #expect(try await http.send("GET", app, headers: basic(stytch)).status == 401)
            #expect(try await http.send("GET", app, headers: ["Authorization": "Bearer \(jwt)x"]).status == 401)
            let b2b = try await http.send("GET", stytch.baseURL.appending(path: "__app/b2b/session"), headers: ["Authorization": "Bearer \(jwt)"])
            #expect(b2b.status == 401, "a consumer JWT is not a member session")
            // The JWT expires after 5 minutes; a fresh one is refused once the session is revoked.
            emulator.control.advanceClock(by: 301)
            let expired = try await http.send("GET", app, headers: ["Authorization": "Bearer \(jwt)"])
            #expect(expired.status == 401)
            #expect(try expired.json()["error_type"]?.stringValue == "unauthorized_credentials")
            let token = try #require(body[path: "data.session_token"]?.stringValue)
            let fresh = try #require(try await post(stytch, "sessions/authenticate", session: token).json()[path: "data.session_jwt"]?.stringValue)
            #expect(try await http.send("GET", app, headers: ["Authorization": "Bearer \(fresh)"]).status == 200)
            try await emulator.control.revokeSessions(of: emulator.seed.stytch.users[0].userID, provider: .stytch)
            #expect(try await http.send("GET", app, headers: ["Authorization": "Bearer \(fresh)"]).status == 401)
        }
    }

    @Test func aSessionEndedByTheProjectIsSessionNotFound() async throws {
        try await withStytch { emulator, stytch in
            let token = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            try await emulator.control.revokeSessions(of: emulator.seed.stytch.users[0].userID, provider: .stytch)
            for path in ["sessions/authenticate", "sessions/revoke"] {
                let gone = try await post(stytch, path, session: token)
                #expect(gone.status == 404, "\(path)")
                #expect(try gone.json()["error_type"] == "session_not_found")
            }
            // A token Stytch never issued, or one its own revoke ended, stays a 401.
            #expect(try await post(stytch, "sessions/authenticate", session: "never-issued").status == 401)
            let other = try #require(try await login(stytch)[path: "data.session_token"]?.stringValue)
            #expect(try await post(stytch, "sessions/revoke", session: other).status == 200)
            let revoked = try await post(stytch, "sessions/authenticate", session: other)
            #expect(revoked.status == 401)
            #expect(try revoked.json()["error_type"] == "unauthorized_credentials")
        }
    }

    @Test func anUnauthorizedAppIdentifierIsRefusedOnEveryRequest() async throws {
        try await withStytch { _, stytch in
            func client(_ identifier: String) -> String {
                Data(JSONValue.object(["app": .object(["identifier": .string(identifier)]), "sdk": .object(["identifier": "t"])]).jsonBytes)
                    .base64EncodedString()
            }
            let body: JSONObject = ["email": "alice@example.com", "password": "alice-password-1"]
            var headers = basic(stytch)
            headers["X-SDK-Client"] = client("latchkey-app")
            for path in ["passwords/authenticate", "sessions/authenticate", "b2b/sessions/authenticate"] {
                let refused = try await http.send("POST", stytch.sdkBaseURL.appending(path: path), headers: headers, json: body)
                #expect(refused.status == 400, "\(path)")
                #expect(try refused.json()["error_type"] == "invalid_mobile_identifier")
            }
            let bootstrap = try await http.send(
                "GET", stytch.sdkBaseURL.appending(path: "projects/bootstrap/\(stytch.publicToken)"),
                headers: headers)
            #expect(bootstrap.status == 400)
            headers["X-SDK-Client"] = "not base64 JSON"
            #expect(
                try await http.send("POST", stytch.sdkBaseURL.appending(path: "passwords/authenticate"), headers: headers, json: body).status == 400)
            headers["X-SDK-Client"] = client(stytch.appIdentifier)
            #expect(stytch.appIdentifier == StytchSeed.defaultAppIdentifier)
            #expect(
                try await http.send("POST", stytch.sdkBaseURL.appending(path: "passwords/authenticate"), headers: headers, json: body).status == 200)
        }
    }

    @Test func theAuthorizedIdentifiersAreSeeded() async throws {
        var seed = StytchSeed.standard
        seed.authorizedAppIdentifiers = ["com.example.one", "com.example.two"]
        let decoded = try JSONDecoder().decode(StytchSeed.self, from: Data(#"{"authorizedAppIdentifiers": ["com.example.three"]}"#.utf8))
        #expect(decoded.authorizedAppIdentifiers == ["com.example.three"])
        #expect(try JSONDecoder().decode(StytchSeed.self, from: Data("{}".utf8)).authorizedAppIdentifiers == [StytchSeed.defaultAppIdentifier])
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch], seed: EmulatorSeed(stytch: seed), clockStart: Self.start))
        let stytch = try #require(emulator.stytch)
        #expect(stytch.appIdentifier == "com.example.one")
        var headers = basic(stytch)
        headers["X-SDK-Client"] = Data(#"{"app":{"identifier":"com.example.two"}}"#.utf8).base64EncodedString()
        let reply = try await http.send(
            "POST", stytch.sdkBaseURL.appending(path: "passwords/authenticate"), headers: headers,
            json: ["email": "alice@example.com", "password": "alice-password-1"])
        await emulator.stop()
        #expect(reply.status == 200)
    }

    @Test func unknownRoutesAre404InStytchShape() async throws {
        try await withStytch { _, stytch in
            for (method, path) in [("POST", "sdk/v1/nope"), ("GET", "sdk/v1/sessions/authenticate"), ("GET", "")] {
                let reply = try await http.send(method, stytch.baseURL.appending(path: path), headers: basic(stytch))
                #expect(reply.status == 404, "\(method) \(path)")
                #expect(try reply.object().names == ["status_code", "request_id", "error_type", "error_message", "error_url"])
            }
            let bootstrap = try await http.send("GET", stytch.sdkBaseURL.appending(path: "projects/bootstrap/\(stytch.publicToken)"))
            #expect(bootstrap.status == 200)
            #expect(try bootstrap.json()[path: "data.project_id"]?.stringValue == stytch.projectID)
        }
    }
}
