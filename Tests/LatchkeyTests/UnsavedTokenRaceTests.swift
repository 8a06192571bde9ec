import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// A renewal whose save failed, raced by a heartbeat check that takes the store's lock
/// before the renewal's record is in memory: the check saves the record it read — the
/// one whose refresh token the renewal spent (the vault held it anyway). The ledgers of
/// soak seeds 26 and 81 (Auth0, a CPU shared with a build) show this race, then the spent
/// token presented and the user logged out by reuse detection. These pin that one client,
/// whatever follows the check, presents the rotated token. What presented the spent one
/// there was the next client after an app restart: the old one's renewal ran after its
/// shutdown (seed 123, kept logs; ``AfterShutdownTests``).
@Suite(.noSecretLeaks) struct UnsavedTokenRaceTests {
    /// The renewal rotates with its save failing, and the check commits in the window
    /// between the renewal's unlock and its return (`slowUnlocks`).
    private func raced(_ store: FlakyStore, failingCheckRead: Bool = false) async throws -> Harness {
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        let spent = try #require(harness.provider.validAccessToken)
        try await harness.renewWhileTheHeartbeatWaits {
            store.slowUnlocks.store(1, ordering: .relaxed)
            store.failWrites.store(1, ordering: .relaxed)
            if failingCheckRead { store.failReads.store(1, ordering: .relaxed) }
        }
        try await Task.sleep(for: .milliseconds(150))
        if !failingCheckRead {
            let stored = try await store.base.string("session")
            #expect(stored?.contains(spent) == true, "the race ran: the check saved the record the renewal spent")
            #expect(store.writes.load(ordering: .relaxed) == 2, "the login's save and the check's")
        }
        #expect(await harness.client.hasUnsavedTokens)
        return harness
    }

    @Test func theNextRenewalPresentsTheRotatedToken() async throws {
        let store = try FlakyStore()
        let harness = try await raced(store)
        let renewed = try #require(harness.provider.validAccessToken)
        #expect(try await harness.client.accessToken() == renewed, "memory keeps the rotated tokens")
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established, "the rotated refresh token was presented")
        #expect(try await store.base.string("session")?.contains(try #require(harness.provider.validAccessToken)) == true)
        await harness.client.shutdown()
    }

    @Test func theNextRenewalPresentsTheRotatedTokenWhenTheChecksReadFailed() async throws {
        let store = try FlakyStore()
        let harness = try await raced(store, failingCheckRead: true)
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established, "the rotated refresh token was presented")
        await harness.client.shutdown()
    }

    @Test func theSaveRetrySavesTheRotatedTokenOverTheChecksRecord() async throws {
        let store = try FlakyStore()
        let harness = try await raced(store)
        let renewed = try #require(harness.provider.validAccessToken)
        harness.clock.advance(by: .seconds(1))
        await settle("the save retry ran") { !(await harness.client.hasUnsavedTokens) }
        #expect(try await store.base.string("session")?.contains(renewed) == true, "the store holds the rotated tokens")
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    @Test func aRestartAfterTheRaceStartsFromTheRotatedToken() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false)
        let harness = try await raced(store)
        await harness.client.shutdown()
        let restarted = harness.restarted(options: options)
        try await restarted.start()
        try await restarted.renew()
        #expect(restarted.state == .established, "the next start presented the rotated refresh token")
        await restarted.shutdown()
    }

    @Test func theNextHeartbeatLeavesTheRotatedTokenInPlace() async throws {
        let store = try FlakyStore()
        let harness = try await raced(store)
        store.failWrites.store(3, ordering: .relaxed)
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat checked again") { harness.provider.counts.validate >= 2 }
        try await Task.sleep(for: .milliseconds(100))
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established, "the rotated refresh token was presented")
        await harness.client.shutdown()
    }
}
