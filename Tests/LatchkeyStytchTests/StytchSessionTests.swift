import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// Restore, check, extend, renew, revoke and update, against the emulator.
@Suite struct StytchSessionTests {
    @Test func restoreAfterRestartChecksTheSessionWithoutExtendingIt() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice(minutes: 60)
            let before = try #require(harness.client.currentSession)
            await harness.client.shutdown()
            harness.advance(by: 60)

            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(await restarted.isRevalidationPending == false)
            #expect(await restarted.lastValidatedAt == harness.clock.now)
            let after = try #require(restarted.currentSession)
            #expect(after.id == before.id)
            #expect(after.expiresAt == before.expiresAt, "a check does not extend")
            #expect(after.lastAccessedAt == harness.clock.now)
            #expect(restarted.currentUser?.email == "alice@example.com")
            let check = try #require(harness.transport.last("sessions/authenticate"))
            #expect(check.body == [:], "sessions/authenticate {} is the check")
            let basic = try #require(check.headers["Authorization"]?.dropFirst("Basic ".count))
            let credentials = String(decoding: try #require(Data(base64Encoded: String(basic))), as: UTF8.self)
            #expect(credentials.hasPrefix(harness.endpoint.publicToken + ":"))
            #expect(credentials != harness.endpoint.publicToken + ":" + harness.endpoint.publicToken, "the session token is sent")
            await restarted.shutdown()
        }
    }

    @Test func restoreWhileStytchFailsKeepsTheSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.client.shutdown()
            await harness.inject("sessions/authenticate", .status(503))
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(await restarted.isRevalidationPending)
            #expect(restarted.currentUser != nil)
            #expect(try await harness.storedRecord() != nil)
            await restarted.shutdown()
        }
    }

    @Test func restoreOfARevokedSessionClearsIt() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let userID = try #require(harness.client.currentUser?.id)
            await harness.client.shutdown()
            // Revoked on the project's side: Stytch answers its documented 404.
            try await harness.emulator.control.revokeSessions(of: userID, provider: .stytch)
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .notLoggedIn)
            #expect(await restarted.endError?.providerCode == "session_not_found")
            #expect(await restarted.endError?.httpStatus == 404)
            #expect(try await harness.storedRecord() == nil)
            await restarted.shutdown()
        }
    }

    @Test func extendSendsTheDurationAndMovesTheExpiry() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice(minutes: 30)
            harness.advance(by: 60)
            try await harness.client.renew(sessionDuration: .seconds(2 * 3600))
            #expect(harness.transport.last("sessions/authenticate")?.body == ["session_duration_minutes": 120])
            #expect(harness.client.currentSession?.expiresAt == harness.clock.now.addingTimeInterval(7200))
            let bad = await authError { try await harness.client.renew(sessionDuration: .seconds(60)) }
            #expect(bad?.code == .invalidArgument)
        }
    }

    @Test func anExpiredJWTIsRenewedWithAPlainAuthenticate() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice(minutes: 60)
            let first = try await harness.client.accessToken()
            let expiry = try #require(harness.client.currentSession?.expiresAt)
            harness.advance(by: 290)
            let second = try await harness.client.accessToken()
            #expect(second != first)
            #expect(try JWT.decode(second).claims.expiresAt == harness.clock.now.addingTimeInterval(300))
            #expect(harness.transport.last("sessions/authenticate")?.body == [:], "no extension without auto_extend")
            #expect(harness.client.currentSession?.expiresAt == expiry)
        }
    }

    @Test func autoExtendSendsTheSessionDurationWithRenewals() async throws {
        let options = SessionOptions(sessionDuration: .seconds(1800), renewsProactively: false)
        try await StytchHarness.with(options: options, settings: ["auto_extend": "true"]) { harness in
            try await harness.loginAlice(minutes: 30)
            harness.advance(by: 290)
            _ = try await harness.client.accessToken()
            #expect(harness.transport.last("sessions/authenticate")?.body == ["session_duration_minutes": 30])
            #expect(harness.client.currentSession?.expiresAt == harness.clock.now.addingTimeInterval(1800))
        }
    }

    @Test func autoExtendSendsTheSessionDurationWithEachHeartbeatTick() async throws {
        let options = SessionOptions(heartbeatInterval: .seconds(180), sessionDuration: .seconds(1800), renewsProactively: false)
        try await StytchHarness.with(options: options, settings: ["auto_extend": "true"]) { harness in
            try await harness.loginAlice(minutes: 30)
            await harness.clock.waitForSleepers(2)
            harness.advance(by: 180)
            await settle("tick") { await harness.count("sessions/authenticate") == 1 }
            #expect(harness.transport.last("sessions/authenticate")?.body == ["session_duration_minutes": 30])
            await settle("extended") { harness.client.currentSession?.expiresAt == harness.clock.now.addingTimeInterval(1800) }
        }
    }

    @Test func proactiveRenewalRunsAtFourMinutes() async throws {
        try await StytchHarness.with(options: SessionOptions(heartbeatInterval: nil)) { harness in
            try await harness.loginAlice()
            let first = try await harness.client.accessToken()
            await harness.clock.waitForSleepers(2)
            #expect(await harness.count("sessions/authenticate") == 0)
            harness.advance(by: 240)
            await settle("renewed") { (try? await harness.client.accessToken()) != first }
            #expect(await harness.count("sessions/authenticate") == 1)
        }
    }

    // MARK: Revoke

    @Test func revokeSucceedsAndClears() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let tokens = try #require(harness.transport.last("passwords/authenticate"))
            _ = tokens
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.count("sessions/revoke") == 1)
            #expect(try await harness.storedRecord() == nil)
            #expect(harness.transport.last("sessions/revoke")?.body == [:])
        }
    }

    @Test func revokeOfASessionStytchAlreadyEndedClears() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            try await harness.emulator.control.revokeSessions(of: try #require(harness.client.currentUser?.id), provider: .stytch)
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
            #expect(try await harness.storedRecord() == nil)
        }
    }

    @Test func aTransientRevokeFailureKeepsTheSessionUnlessForced() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.inject("sessions/revoke", .status(503))
            let error = await authError { try await harness.client.logout(revoke: .required) }
            #expect(error?.code == .transient)
            #expect(error?.httpStatus == 503)
            #expect(harness.client.state == .established)
            #expect(try await harness.storedRecord() != nil)
            // A 401 of another type from revoke is not a verdict on the session either.
            await harness.inject("sessions/revoke", .status(401, error: "invalid_user_agent"))
            #expect(await authError { try await harness.client.logout(revoke: .required) }?.code == .transient)
            #expect(harness.client.state == .established)

            await harness.inject("sessions/revoke", .dropConnection)
            try await harness.client.logout(revoke: .bestEffort)
            #expect(harness.client.state == .notLoggedIn)
            #expect(try await harness.storedRecord() == nil)
        }
    }

    // MARK: Update from tokens

    @Test func updateFromTokensWhileLoggedOut() async throws {
        try await StytchHarness.with { harness in
            let tokens = try await StytchRaw.aliceTokens(harness.endpoint)
            try await harness.client.update(tokens: tokens)
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.email == "alice@example.com")
            #expect(harness.transport.last("sessions/authenticate")?.body == [:])
            let incomplete = await authError { try await harness.client.update(tokens: SessionTokens(accessToken: tokens.accessToken)) }
            #expect(incomplete?.code == .invalidArgument)
            #expect(incomplete?.message.contains("session token") == true)
        }
    }

    @Test func updateFromTokensWhileEstablishedReplacesTheSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let old = try #require(harness.client.currentSession?.id)
            harness.advance(by: 5)
            let tokens = try await StytchRaw.aliceTokens(harness.endpoint)
            try await harness.client.update(tokens: tokens)
            #expect(harness.client.state == .established)
            let new = try #require(harness.client.currentSession?.id)
            #expect(new != old)
            #expect(try JWT.decode(try await harness.client.accessToken()).claims["https://stytch.com/session"]?["id"] == .string(new))
            // Tokens Stytch refuses leave the current session in place.
            let refused = await authError {
                try await harness.client.update(tokens: SessionTokens(accessToken: tokens.accessToken, sessionToken: "not-a-session"))
            }
            #expect(refused?.code == .unrecoverable)
            #expect(harness.client.currentSession?.id == new)
            #expect(harness.client.state == .established)
        }
    }
}
