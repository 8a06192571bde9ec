import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus
import Testing

/// Secure logout (`DELETE /api/v4/sessions`: on failure, throw and stay logged in),
/// plain logout, and restoring after a restart.
@Suite struct LogoutAndRestoreTests {
    @Test func secureLogoutRevokesTheTokenAtSocialPlus() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            let token = try await harness.client.accessToken()
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.emulator.control.count(SocialPlusHarness.logoutRoute) == 1)
            let revoke = try #require(harness.transport.requests.last)
            #expect(revoke.method == "DELETE")
            #expect(revoke.headers["Authorization"] == "Bearer \(token)")
            // The token no longer works.
            let check = try await URLSessionTransport().send(
                TransportRequest(url: harness.userRequest().url, headers: ["Authorization": "Bearer \(token)"]))
            #expect(check.status == 401)
        }
    }

    @Test(arguments: [
        EmulatorFault.Kind.status(500), .status(503), .status(429), .dropConnection, .malformedBody, SocialPlusHarness.slowAnswer,
        .status(403, error: "400300"),
    ])
    func aFailedSecureLogoutThrowsAndKeepsTheSession(fault: EmulatorFault.Kind) async throws {
        try await SocialPlusHarness.run(timeout: SocialPlusHarness.timeout(for: fault)) { harness in
            try await harness.client.start()
            try await harness.login()
            let token = try await harness.client.accessToken()
            // URLSession retries an idempotent request once on a dropped connection: drop both.
            await harness.emulator.control.inject(
                EmulatorFault(route: SocialPlusHarness.logoutRoute, kind: fault, trigger: .next(fault == .dropConnection ? 2 : 1)))
            let error = await authError { try await harness.client.logout(revoke: .required) }
            #expect(error?.isRetryable == true)
            #expect(harness.client.state == .established)
            #expect(try await harness.client.accessToken() == token)
            #expect(try await harness.store.string("session") != nil)
            await harness.emulator.control.clearFaults()
            // The next try succeeds.
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func secureLogoutOfAnAlreadyRevokedTokenSucceeds() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            try await harness.emulator.control.revokeSessions(of: "alice", provider: .socialPlus)
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func plainLogoutClearsLocallyAndKeepsTheDeviceID() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            try await harness.client.logout()
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.emulator.control.count(SocialPlusHarness.logoutRoute) == 0)
            #expect(try await harness.store.string("session") == nil)
            #expect(try await harness.store.string("provider.socialplus.device_id") != nil)
        }
    }

    @Test func aRestartRestoresAndValidatesTheSession() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            let token = try await harness.client.accessToken()
            await harness.client.shutdown()
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(restarted.currentUser?.id == "alice")
            #expect(restarted.currentSession?.expiresAt == SocialPlusHarness.start.addingTimeInterval(3600))
            #expect(try await restarted.accessToken() == token)
            #expect(await harness.emulator.control.count(SocialPlusHarness.userRoute) == 1)
            // The restored session renews with the same device.
            try await restarted.renew()
            let bodies = harness.loginBodies()
            #expect(bodies.count == 2)
            #expect(bodies[1]["deviceId"] == bodies[0]["deviceId"])
            await restarted.shutdown()
        }
    }

    @Test(arguments: [EmulatorFault.Kind.status(500), .status(429), .dropConnection, .malformedBody, SocialPlusHarness.slowAnswer])
    func aRestoreThatCannotReachSocialPlusKeepsTheSession(fault: EmulatorFault.Kind) async throws {
        try await SocialPlusHarness.run(timeout: SocialPlusHarness.timeout(for: fault)) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.client.shutdown()
            await harness.emulator.control.inject(
                EmulatorFault(route: SocialPlusHarness.userRoute, kind: fault, trigger: .next(fault == .dropConnection ? 2 : 1)))
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(await restarted.isRevalidationPending)
            #expect(restarted.currentUser?.id == "alice")
            await restarted.shutdown()
        }
    }

    @Test func aRestoredTokenThatExpiredAtSocialPlusIsRenewed() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            let token = try await harness.client.accessToken()
            await harness.client.shutdown()
            try await harness.emulator.control.expireSessions(of: "alice", provider: .socialPlus)
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(try await restarted.accessToken() != token)
            #expect(await harness.logins() == 2)
            await restarted.shutdown()
        }
    }
}
