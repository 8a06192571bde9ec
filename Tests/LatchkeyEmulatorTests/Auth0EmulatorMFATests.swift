import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// What the Auth0 emulator gained for the adapter: the MFA grants, a step-up on refresh,
/// the login and device pages, the legacy error shape and `session_expiry`.
@Suite struct Auth0EmulatorMFATests {
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

    private func mfaToken(_ auth0: Auth0Endpoint) async throws -> String {
        let reply = try await token(
            auth0,
            [
                "grant_type": "password", "username": "mfa@example.com", "password": "mfa-password-1",
                "scope": "openid offline_access",
            ])
        #expect(reply.status == 403)
        #expect(try reply.object()["error"] == "mfa_required")
        return try #require(try reply.object()["mfa_token"]?.stringValue)
    }

    @Test func otpAndRecoveryGrantsFinishAnMFALogin() async throws {
        try await withAuth0 { emulator, auth0 in
            let first = try await mfaToken(auth0)
            let wrong = try await token(
                auth0, ["grant_type": "http://auth0.com/oauth/grant-type/mfa-otp", "mfa_token": .string(first), "otp": "999999"])
            #expect(wrong.status == 403)
            #expect(try wrong.object()["error"] == "invalid_grant")
            let right = try await token(
                auth0, ["grant_type": "http://auth0.com/oauth/grant-type/mfa-otp", "mfa_token": .string(first), "otp": "123456"])
            #expect(right.status == 200, "\(right.text)")
            #expect(try right.object()["refresh_token"] != nil, "the original grant's offline_access carries over")
            // The token is spent.
            #expect(
                try await token(auth0, ["grant_type": "http://auth0.com/oauth/grant-type/mfa-otp", "mfa_token": .string(first), "otp": "123456"])
                    .status == 403)

            let second = try await mfaToken(auth0)
            let recovery: JSONObject = [
                "grant_type": "http://auth0.com/oauth/grant-type/mfa-recovery-code", "mfa_token": .string(second),
                "recovery_code": "RECOVERY-CODE-1",
            ]
            #expect(try await token(auth0, recovery).status == 200)
            // A recovery code works once; an mfa_token lives 10 minutes.
            var again = recovery
            again["mfa_token"] = .string(try await mfaToken(auth0))
            #expect(try await token(auth0, again).status == 403)
            let late = try await mfaToken(auth0)
            emulator.control.advanceClock(by: 601)
            #expect(
                try await token(auth0, ["grant_type": "http://auth0.com/oauth/grant-type/mfa-otp", "mfa_token": .string(late), "otp": "123456"])
                    .status == 403)
        }
    }

    @Test func stepUpOnRefreshLegacyShapeAndRateLimitHeaders() async throws {
        var seed = Auth0Seed.standard
        seed.sessionLifetime = 3_600
        try await withAuth0(seed) { emulator, auth0 in
            let login = try await token(
                auth0,
                [
                    "grant_type": "password", "username": "alice@example.com", "password": "alice-password-1",
                    "scope": "openid offline_access",
                ])
            let idToken = try #require(try login.object()["id_token"]?.stringValue)
            #expect(try JWT.decode(idToken).claims["session_expiry"] == .number(Self.start.timeIntervalSince1970 + 3_600))
            let refreshToken = try #require(try login.object()["refresh_token"]?.stringValue)
            try await emulator.control.requireAuth0MFAOnNextRefresh(userID: "auth0|alice")
            let stepUp = try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
            #expect(stepUp.status == 403)
            #expect(try stepUp.object()["error"] == "mfa_required")
            #expect(try stepUp.object()["mfa_token"] != nil)
            // Once only: the refresh token still works.
            #expect(try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)]).status == 200)

            try emulator.control.setAuth0LegacyErrors(true)
            let legacy = try await token(auth0, ["grant_type": "refresh_token", "refresh_token": "unknown"])
            #expect(try legacy.object().names == ["code", "description"])
            #expect(try legacy.object()["code"] == "invalid_grant")

            await emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/token"), kind: .status(429)))
            let limited = try await token(auth0, ["grant_type": "refresh_token", "refresh_token": "x"])
            #expect(limited.header("x-ratelimit-reset") == String(Int(Self.start.timeIntervalSince1970) + 60))
        }
    }

    @Test func loginPageAndDevicePage() async throws {
        try await withAuth0 { _, auth0 in
            var components = try #require(URLComponents(url: auth0.baseURL.appending(path: "authorize"), resolvingAgainstBaseURL: false))
            let parameters = [
                ("response_type", "code"), ("client_id", auth0.clientID), ("redirect_uri", Auth0Seed.defaultCallbackURL),
                ("scope", "openid"), ("state", "s-1"),
            ]
            components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            let page = try await http.send("GET", try #require(components.url))
            #expect(page.status == 200)
            #expect(page.text.contains(#"id="username""#) && page.text.contains(#"name="state" value="s-1""#))
            let wrong = try await http.send(
                "POST", auth0.baseURL.appending(path: "authorize"),
                form: parameters + [("username", "alice@example.com"), ("password", "nope")])
            #expect(wrong.status == 200 && wrong.text.contains("Wrong email or password."))
            let right = try await http.send(
                "POST", auth0.baseURL.appending(path: "authorize"),
                form: parameters + [("username", "alice@example.com"), ("password", "alice-password-1")])
            #expect(right.status == 302)
            #expect(right.header("location")?.hasPrefix(Auth0Seed.defaultCallbackURL + "?code=") == true)
            #expect(right.header("location")?.hasSuffix("&state=s-1") == true)

            let device = try await http.send(
                "POST", auth0.baseURL.appending(path: "oauth/device/code"),
                form: [("client_id", auth0.clientID), ("scope", "openid")])
            let userCode = try #require(try device.object()["user_code"]?.stringValue)
            let activate = try await http.send("GET", auth0.baseURL.appending(path: "activate"))
            #expect(activate.text.contains(#"id="approve""#))
            let denied = try await http.send("POST", auth0.baseURL.appending(path: "activate"), form: [("user_code", userCode), ("action", "deny")])
            #expect(denied.text.contains("denied"))
        }
    }
}
