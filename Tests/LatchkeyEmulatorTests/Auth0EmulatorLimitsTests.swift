import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

/// The Auth0 tenant's limits and second chances: `/userinfo`'s per-user rate limit on
/// the emulator clock, the rotation overlap period (reuse interval), and the new
/// recovery code the recovery grant answers with.
@Suite struct Auth0EmulatorLimitsTests {
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

    private func login(
        _ auth0: Auth0Endpoint, _ email: String = "alice@example.com", password: String = "alice-password-1"
    ) async throws -> JSONObject {
        let reply = try await token(
            auth0,
            [
                "grant_type": "password", "username": .string(email), "password": .string(password),
                "scope": "openid profile email offline_access",
            ])
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.object()
    }

    private func userInfo(_ auth0: Auth0Endpoint, _ accessToken: String) async throws -> EmulatorHTTP.Reply {
        try await http.send("GET", auth0.baseURL.appending(path: "userinfo"), headers: ["Authorization": "Bearer \(accessToken)"])
    }

    private func refresh(_ auth0: Auth0Endpoint, _ refreshToken: String) async throws -> EmulatorHTTP.Reply {
        try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
    }

    @Test func userinfoAllowsABurstOf10Then5AMinutePerUser() async throws {
        try await withAuth0 { emulator, auth0 in
            let alice = try #require(try await login(auth0)["access_token"]?.stringValue)
            let epoch = Int(Self.start.timeIntervalSince1970)
            for remaining in (0..<10).reversed() {
                let reply = try await userInfo(auth0, alice)
                #expect(reply.status == 200)
                #expect(reply.header("x-ratelimit-limit") == "10")
                #expect(reply.header("x-ratelimit-remaining") == String(remaining))
                // The reset is when the bucket is full again: 12 s a request at 5 a minute.
                #expect(reply.header("x-ratelimit-reset") == String(epoch + 12 * (10 - remaining)))
            }
            let limited = try await userInfo(auth0, alice)
            #expect(limited.status == 429)
            #expect(try limited.object() == ["error": "too_many_requests", "error_description": "Too Many Requests"])
            #expect(limited.header("x-ratelimit-remaining") == "0")
            #expect(limited.header("x-ratelimit-reset") == String(epoch + 120))
            // On the emulator clock: 12 s refill one request.
            emulator.control.advanceClock(by: 11)
            #expect(try await userInfo(auth0, alice).status == 429)
            emulator.control.advanceClock(by: 1)
            #expect(try await userInfo(auth0, alice).status == 200)
            #expect(try await userInfo(auth0, alice).status == 429)
            emulator.control.advanceClock(by: 120)
            for _ in 0..<10 { #expect(try await userInfo(auth0, alice).status == 200) }
            // A refused token is not counted against anyone (and is still a 401).
            #expect(try await userInfo(auth0, "not-a-token").status == 401)
            let statuses = await emulator.control.requests(route: EmulatorRoute(.auth0, "GET", "/userinfo")).compactMap(\.status)
            #expect(statuses.filter { $0 == 429 }.count == 3)
        }
    }

    /// A real service writes `Date` and `x-ratelimit-reset` from one clock, so a client
    /// measures the wait as reset − `Date`. The emulator's clock is pinned in 2027 and moved
    /// by the test, far from the machine's: its `Date` follows it all the same.
    @Test func theDateHeaderAndTheResetShareTheEmulatorClock() async throws {
        try await withAuth0 { emulator, auth0 in
            let alice = try #require(try await login(auth0)["access_token"]?.stringValue)
            let epoch = Int(Self.start.timeIntervalSince1970)
            for _ in 0..<10 { #expect(try await userInfo(auth0, alice).status == 200) }
            let limited = try await userInfo(auth0, alice)
            #expect(limited.status == 429)
            // 1,800,000,000 s after 1970; the bucket is full again 120 s later.
            #expect(limited.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")
            #expect(limited.header("x-ratelimit-reset") == String(epoch + 120))
            emulator.control.advanceClock(by: 3600)
            let later = try await userInfo(auth0, alice)
            #expect(later.header("Date") == "Fri, 15 Jan 2027 09:00:00 GMT")
            #expect(later.header("x-ratelimit-reset") == String(epoch + 3600 + 12), "one request spent: 12 s to refill")
            // An injected 429 (a limit elsewhere in the tenant) says a minute, on the same clock.
            await emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/token"), kind: .status(429)))
            let token = try await refresh(auth0, "x")
            #expect(token.status == 429)
            #expect(token.header("Date") == "Fri, 15 Jan 2027 09:00:00 GMT")
            #expect(token.header("x-ratelimit-reset") == String(epoch + 3600 + 60))
            // Every answer carries it, not only a limited one.
            #expect(
                try await http.send("GET", auth0.baseURL.appending(path: ".well-known/jwks.json")).header("Date") == "Fri, 15 Jan 2027 09:00:00 GMT")
        }
    }

    @Test func theLimitIsPerUserAndCanBeTurnedOff() async throws {
        var seed = Auth0Seed.standard
        seed.users.append(Auth0Seed.User(userID: "auth0|bob", email: "bob@example.com", password: "bob-password-1"))
        try await withAuth0(seed) { _, auth0 in
            let alice = try #require(try await login(auth0)["access_token"]?.stringValue)
            let bob = try #require(try await login(auth0, "bob@example.com", password: "bob-password-1")["access_token"]?.stringValue)
            for _ in 0..<10 { _ = try await userInfo(auth0, alice) }
            #expect(try await userInfo(auth0, alice).status == 429)
            #expect(try await userInfo(auth0, bob).status == 200, "bob has his own bucket")
        }
        seed.userInfoBurst = 0
        try await withAuth0(seed) { _, auth0 in
            let alice = try #require(try await login(auth0)["access_token"]?.stringValue)
            for _ in 0..<30 { #expect(try await userInfo(auth0, alice).status == 200) }
            #expect(try await userInfo(auth0, alice).header("x-ratelimit-limit") == nil)
        }
    }

    @Test func theRotationOverlapPeriodLetsThePreviousTokenThroughOnce() async throws {
        var seed = Auth0Seed.standard
        seed.refreshTokenReuseInterval = 30
        try await withAuth0(seed) { emulator, auth0 in
            let first = try #require(try await login(auth0)["refresh_token"]?.stringValue)
            let second = try #require(try await refresh(auth0, first).object()["refresh_token"]?.stringValue)
            // A client that never saved `second` presents `first` again, inside the period.
            emulator.control.advanceClock(by: 29)
            let again = try await refresh(auth0, first)
            #expect(again.status == 200)
            let third = try #require(try again.object()["refresh_token"]?.stringValue)
            #expect(third != second)
            let status = try await emulator.control.auth0RefreshTokenStatus(third)
            #expect(status.newest && !status.spent && !status.familyRevoked && status.issuedInFamily == 3)
            // The period runs from the rotation that spent `first`: it does not restart.
            emulator.control.advanceClock(by: 1)
            #expect(try await refresh(auth0, first).status == 403)
            #expect(try await emulator.control.auth0RefreshTokenStatus(third).familyRevoked)
        }
        try await withAuth0(seed) { emulator, auth0 in
            // Only the token the latest rotation spent: an older one is reuse, even inside the period.
            let first = try #require(try await login(auth0)["refresh_token"]?.stringValue)
            let second = try #require(try await refresh(auth0, first).object()["refresh_token"]?.stringValue)
            #expect(try await refresh(auth0, second).status == 200)
            #expect(try await refresh(auth0, first).status == 403)
            #expect(try await emulator.control.auth0RefreshTokenStatus(second).familyRevoked)
        }
        // Auth0's default (no period): any reuse revokes at once.
        try await withAuth0 { emulator, auth0 in
            let first = try #require(try await login(auth0)["refresh_token"]?.stringValue)
            #expect(try await refresh(auth0, first).status == 200)
            #expect(try await refresh(auth0, first).status == 403)
            #expect(try await emulator.control.auth0RefreshTokenStatus(first).familyRevoked)
        }
    }

    @Test func theRecoveryGrantAnswersWithANewRecoveryCode() async throws {
        try await withAuth0 { _, auth0 in
            func mfaToken() async throws -> String {
                let reply = try await token(
                    auth0,
                    [
                        "grant_type": "password", "username": "mfa@example.com", "password": "mfa-password-1",
                        "scope": "openid offline_access",
                    ])
                return try #require(try reply.object()["mfa_token"]?.stringValue)
            }
            func recover(_ code: String) async throws -> EmulatorHTTP.Reply {
                try await token(
                    auth0,
                    [
                        "grant_type": "http://auth0.com/oauth/grant-type/mfa-recovery-code",
                        "mfa_token": .string(try await mfaToken()), "recovery_code": .string(code),
                    ])
            }
            let first = try await recover("RECOVERY-CODE-1")
            #expect(first.status == 200)
            let body = try first.object()
            #expect(body.names == ["access_token", "refresh_token", "id_token", "scope", "expires_in", "token_type", "recovery_code"])
            let newCode = try #require(body["recovery_code"]?.stringValue)
            #expect(newCode.count == 24 && newCode.allSatisfy { $0.isUppercase })
            // The old code is spent; the new one works, once, and is replaced in turn.
            #expect(try await recover("RECOVERY-CODE-1").status == 403)
            let second = try await recover(newCode)
            #expect(second.status == 200)
            #expect(try second.object()["recovery_code"]?.stringValue != newCode)
            #expect(try await recover(newCode).status == 403)
            // The OTP grant carries no recovery code.
            let otp = try await token(
                auth0,
                [
                    "grant_type": "http://auth0.com/oauth/grant-type/mfa-otp",
                    "mfa_token": .string(try await mfaToken()), "otp": "123456",
                ])
            #expect(try otp.object()["recovery_code"] == nil)
        }
    }
}
