import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch
import Testing

/// The heartbeat in simulated time against the emulator: `sessions/authenticate {}`
/// every 180 s; network failures retried; a 401 with an unrecoverable type ends it.
@Suite struct StytchHeartbeatTests {
    static let options = SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false)

    @Test func ticksEvery180SecondsWithACheckThatDoesNotExtend() async throws {
        try await StytchHarness.with(options: Self.options) { harness in
            try await harness.loginAlice(minutes: 60)
            let expiry = try #require(harness.client.currentSession?.expiresAt)
            await harness.clock.waitForSleepers(2)  // the heartbeat and the JWT's expiry
            harness.advance(by: 179)
            await Task.yield()
            #expect(await harness.count("sessions/authenticate") == 0)
            harness.advance(by: 1)
            await settle("first tick") { await harness.count("sessions/authenticate") == 1 }
            await settle("validated") { await harness.client.lastValidatedAt == harness.clock.now }
            #expect(harness.transport.last("sessions/authenticate")?.body == [:])
            #expect(harness.client.currentSession?.expiresAt == expiry)
            await harness.clock.waitForSleepers(2)
            harness.advance(by: 180)
            await settle("second tick") { await harness.count("sessions/authenticate") == 2 }
            #expect(harness.transport.last("sessions/authenticate")?.body == [:])
            await settle("established") { harness.client.state == .established }
        }
    }

    @Test func networkFailuresAreRetriedAt2To32Seconds() async throws {
        try await StytchHarness.with(options: Self.options) { harness in
            try await harness.loginAlice(minutes: 60)
            await harness.clock.waitForSleepers(2)
            await harness.inject("sessions/authenticate", .dropConnection)
            harness.advance(by: 180)
            await settle("tick") { await harness.count("sessions/authenticate") == 1 }
            var attempts = 1
            for (index, expected) in [2.0, 4, 8, 16, 32].enumerated() {
                await harness.clock.waitForSleepers(2)
                let delay = try #require(harness.clock.nextDeadline).timeIntervalSince(harness.clock.now)
                #expect(delay >= expected * 0.8 && delay <= expected * 1.2, "retry \(index + 1): \(delay) s, expected about \(expected) s")
                if index == 4 {
                    // Keep the JWT fresh so its expiry timer does not hide the heartbeat's next deadline.
                    try await harness.client.renew()
                    attempts += 1
                }
                await harness.inject("sessions/authenticate", .dropConnection)
                harness.advance(by: Int(delay.rounded(.up)))
                attempts += 1
                await settle("retry \(index + 1)") { await harness.count("sessions/authenticate") == attempts }
                #expect(harness.client.state == .established, "the session is kept throughout")
            }
            await harness.clock.waitForSleepers(2)
            let sixth = try #require(harness.clock.nextDeadline).timeIntervalSince(harness.clock.now)
            #expect(sixth >= 100, "the next attempt is the next tick, not a sixth retry: \(sixth) s")
            #expect(try await harness.storedRecord() != nil)
        }
    }

    @Test func aDefinitive401StopsTheRetriesAndEndsTheSession() async throws {
        try await StytchHarness.with(options: Self.options) { harness in
            try await harness.loginAlice(minutes: 60)
            await harness.clock.waitForSleepers(2)
            await harness.inject("sessions/authenticate", .dropConnection)
            harness.advance(by: 180)
            await settle("tick") { await harness.count("sessions/authenticate") == 1 }
            await harness.clock.waitForSleepers(2)
            await harness.inject("sessions/authenticate", .status(401, error: "unauthorized_credentials"))
            harness.advance(by: 3)
            await settle("logged out") { harness.client.state == .notLoggedIn }
            #expect(try await harness.storedRecord() == nil)
            #expect(harness.clock.sleeperCount == 0, "no more retries or ticks")
            harness.advance(by: 600)
            #expect(await harness.count("sessions/authenticate") == 2)
        }
    }

    @Test func anExpiredSessionAtStytchEndsOnTheNextTick() async throws {
        try await StytchHarness.with(options: Self.options) { harness in
            try await harness.loginAlice(minutes: 60)
            await harness.clock.waitForSleepers(2)
            _ = try await harness.emulator.control.expireSessions(of: try #require(harness.client.currentSession?.id), provider: .stytch)
            harness.advance(by: 180)
            await settle("logged out") { harness.client.state == .notLoggedIn }
            #expect(await harness.client.endError?.providerCode == "unauthorized_credentials")
        }
    }
}
