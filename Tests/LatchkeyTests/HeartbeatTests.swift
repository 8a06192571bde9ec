import Foundation
import Latchkey
import Testing

/// The heartbeat: validates on schedule without extending; only a definitive failure
/// ends the session.
@Suite(.noSecretLeaks) struct HeartbeatTests {
    @Test func runsEvery180SecondsAndDoesNotExtend() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        let sessionExpiry = try #require(harness.client.currentSession?.expiresAt)
        let token = try await harness.client.accessToken()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        #expect(harness.provider.counts.validate == 0)

        for beat in 1...3 {
            harness.clock.advance(by: .seconds(179))
            await Task.yield()
            #expect(harness.provider.counts.validate == beat - 1, "not before 180 s")
            harness.clock.advance(by: .seconds(1))
            await settle("beat \(beat)") { harness.provider.counts.validate == beat }
            await harness.clock.waitForSleepers(2)  // the next beat and the expiry timer
            #expect(await harness.client.lastValidatedAt == harness.clock.now)
        }
        #expect(harness.provider.counts.renew == 0, "the heartbeat never renews")
        #expect(harness.client.currentSession?.expiresAt == sessionExpiry, "the heartbeat never extends the session")
        #expect(try await harness.client.accessToken() == token)
        await harness.client.shutdown()
    }

    @Test func aDefinitiveFailureLogsOut() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [
            .fail(AuthError(.unrecoverable, "Session expired", providerCode: "unauthorized_credentials", httpStatus: 401))
        ])
        harness.clock.advance(by: .seconds(180))
        await settle("logged out") { harness.client.state == .notLoggedIn }
        #expect(try await harness.storedRecord() == nil)
        #expect(harness.client.currentUser == nil)
        #expect(harness.clock.sleeperCount == 0, "the heartbeat stopped")
    }

    @Test func aBanTerminatesTheSession() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [
            .fail(AuthError.terminated(.globalBan, "User is globally banned", providerCode: "400312", httpStatus: 403))
        ])
        harness.clock.advance(by: .seconds(180))
        await settle("terminated") { harness.client.state == .terminated(.globalBan) }
        var users = harness.client.userChanges.makeAsyncIterator()
        #expect(await users.next() == .unavailable(.terminated(.globalBan)))
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == .terminated)
        #expect(error?.terminationReason == .globalBan)
        let login = await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse")) }
        #expect(login?.code == .invalidState, "terminated → only logout leads out")
        try await harness.client.logout()
        #expect(harness.client.state == .notLoggedIn)
    }

    @Test func aNetworkFailureKeepsTheSessionAndBacksOff() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [.failTransport, .fail(AuthError.rateLimited(retryAfter: .seconds(30), "Too many requests"))])
        harness.clock.advance(by: .seconds(180))
        await settle("first beat") { harness.provider.counts.validate == 1 }
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        #expect(harness.client.state == .established)
        let retry = try #require(harness.clock.nextDeadline).timeIntervalSince(harness.clock.now)
        #expect(retry >= 1.6 && retry <= 2.4, "about 2 s, not the full interval: \(retry)")
        harness.clock.advance(by: .seconds(3))
        await settle("second beat") { harness.provider.counts.validate == 2 }
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        let rateLimited = try #require(harness.clock.nextDeadline).timeIntervalSince(harness.clock.now)
        #expect(rateLimited >= 30, "Retry-After is honoured: \(rateLimited)")
        harness.clock.advance(by: .seconds(30))
        await settle("third beat") { harness.provider.counts.validate == 3 }
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        #expect(harness.clock.nextDeadline?.timeIntervalSince(harness.clock.now) == 180, "back on schedule")
        #expect(harness.client.state == .established)
        #expect(try await harness.storedRecord() != nil)
        await harness.client.shutdown()
    }

    @Test func stopsOnLogoutAndShutdown() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        try await harness.client.logout()
        await settle("heartbeat gone") { harness.clock.sleeperCount == 0 }
        harness.clock.advance(by: .seconds(3600))
        #expect(harness.provider.counts.validate == 0)

        let second = try Harness(options: SessionOptions(renewsProactively: false))
        try await second.login()
        await second.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        await second.client.shutdown()
        await settle("heartbeat gone") { second.clock.sleeperCount == 0 }
        second.clock.advance(by: .seconds(3600))
        #expect(second.provider.counts.validate == 0)
        #expect(try await second.storedRecord() != nil, "shutdown keeps the session for the next start")
    }

    @Test func theIntervalIsConfigurable() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: .seconds(30), renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.clock.advance(by: .seconds(30))
        await settle("beat") { harness.provider.counts.validate == 1 }
        await harness.client.shutdown()

        let none = try Harness(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await none.login()
        await none.clock.waitForSleepers(1)
        #expect(none.clock.nextDeadline?.timeIntervalSince(none.clock.now) == 3600, "only the expiry timer")
        none.clock.advance(by: .seconds(1800))
        await Task.yield()
        #expect(none.provider.counts.validate == 0)
        await none.client.shutdown()
    }

    @Test func networkFailuresRetryFiveTimesAsTheIOSSDKThenWaitForTheNextTick() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)
        harness.provider.setDefaults(validate: .failTransport)
        harness.clock.advance(by: .seconds(180))
        var waits: [TimeInterval] = []
        for attempt in 1...6 {
            await settle("attempt \(attempt)") { harness.provider.counts.validate == attempt }
            await harness.clock.waitForSleepers(2)
            let wait = try #require(harness.clock.nextDeadline).timeIntervalSince(harness.clock.now)
            waits.append(wait)
            harness.clock.advance(by: .seconds(wait))
        }
        #expect(waits == [2, 4, 8, 16, 32, 180])
        #expect(harness.client.state == .established)
        // A definitive answer stops the retries at once.
        // The seventh beat is counted before it picks its answer: wait until it has gone
        // back to sleep, or the definitive answer below could be the seventh's.
        await settle("seventh") { harness.provider.counts.validate == 7 }
        await harness.clock.waitForSleepers(2)
        harness.provider.setDefaults(
            validate: .fail(AuthError(.unrecoverable, "Session expired", providerCode: "unauthorized_credentials", httpStatus: 401)))
        harness.clock.advance(by: .seconds(2))
        await settle("logged out") { harness.client.state == .notLoggedIn }
        await harness.client.shutdown()
    }
}
