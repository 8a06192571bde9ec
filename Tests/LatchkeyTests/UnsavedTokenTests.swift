import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// A rotated refresh token whose save failed is kept, marked and saved again — never
/// handed out and forgotten (the Auth0.swift #490 failure).
@Suite(.noSecretLeaks) struct UnsavedTokenTests {
    @Test func aFailedSaveOfRenewedTokensIsRetriedOnTheNextCall() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(1, ordering: .relaxed)
        let renewed = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == 1)
        #expect(await harness.client.hasUnsavedTokens)
        #expect(try await store.base.string("session")?.contains(renewed) == false, "the first save failed")
        #expect(harness.logs.all.contains { $0.contains("could not be persisted") })

        // The next call saves it before anything else.
        #expect(try await harness.client.accessToken() == renewed)
        #expect(!(await harness.client.hasUnsavedTokens))
        #expect(try await store.base.string("session")?.contains(renewed) == true)

        // A restart now presents the newest refresh token: no reuse, no logout.
        await harness.client.shutdown()
        harness.clock.advance(by: .seconds(301))
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(harness.provider.counts.renew == 2)
        await restarted.shutdown()
    }

    /// A client with no heartbeat and no calls (a SessionHost's idle user) still saves a
    /// rotated refresh token the store refused: a retry on the client's clock, not the
    /// next call. Found by the fleet soak: such a token waited for the user's next use and
    /// was lost when the instance was killed first.
    @Test func aFailedSaveIsRetriedOnATimerWithoutAnyCall() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(2, ordering: .relaxed)
        let renewed = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        // The first retry (half a second, with jitter) fails too; the next one saves.
        for _ in 0..<2 {
            await settle("a retry is armed") { harness.clock.nextDeadline.map { $0.timeIntervalSince(harness.clock.now) < 5 } ?? false }
            harness.clock.advance(by: .seconds(5))
        }
        await settle("saved without a call") { !(await harness.client.hasUnsavedTokens) }
        #expect(try await store.base.string("session")?.contains(renewed) == true)
        #expect(harness.provider.counts.renew == 1)
        await harness.client.shutdown()
    }

    /// A retry loop left asleep in a long back-off (its tokens saved since by a call) must
    /// not hold back the save of tokens a later renewal could not save.
    @Test func aNewFailedSaveIsRetriedSoonEvenAfterEarlierFailures() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        // The first renewal's save and the loop's first four retries fail: its back-off grows.
        store.failWrites.store(5, ordering: .relaxed)
        _ = try await harness.client.accessToken()
        // The clock moves a second at a time until every failure is spent, then stops: the
        // loop is left asleep in its next wait (0.5 s doubled four times: 8 s, ±20%).
        await settle("the earlier retries failed") {
            if store.failWrites.load(ordering: .relaxed) <= 0 { return true }
            harness.clock.advance(by: .seconds(1))
            return false
        }
        // A call saves it; the loop sleeps on.
        _ = try await harness.client.accessToken()
        #expect(!(await harness.client.hasUnsavedTokens))
        // A forced renewal whose save fails: retried within a second, not at the old loop's tick.
        store.failWrites.store(1, ordering: .relaxed)
        try await harness.client.renew()
        #expect(await harness.client.hasUnsavedTokens)
        harness.clock.advance(by: .seconds(1))
        await settle("saved soon") { !(await harness.client.hasUnsavedTokens) }
        await harness.client.shutdown()
    }

    @Test func theHeartbeatRetriesTheSaveToo() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        // Armed before the clock moves: the heartbeat wakes too and may renew first.
        store.failWrites.store(1, ordering: .relaxed)
        harness.clock.advance(by: .seconds(301))
        let renewed = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        await harness.clock.waitForSleepers(2)  // the heartbeat's next beat and the new expiry timer
        harness.clock.advance(by: .seconds(180))
        await settle("saved by the heartbeat") { !(await harness.client.hasUnsavedTokens) }
        #expect(try await store.base.string("session")?.contains(renewed) == true)
        await harness.client.shutdown()
    }

    @Test func aStoreThatKeepsFailingNeverLosesTheNewestTokensInMemory() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        store.failWrites.store(1_000, ordering: .relaxed)
        for round in 1...3 {
            harness.clock.advance(by: .seconds(301))
            let token = try await harness.client.accessToken()
            #expect(token == harness.provider.validAccessToken, "round \(round): the newest token, renewed with the newest refresh token")
        }
        #expect(harness.provider.counts.renew == 3, "no refresh token was reused (the scripted server refuses reuse)")
        #expect(harness.client.state == .established, "a storage failure never logs out")
        store.failWrites.store(0, ordering: .relaxed)
        _ = try await harness.client.accessToken()
        #expect(try await store.base.string("session")?.contains(harness.provider.validAccessToken!) == true)
        await harness.client.shutdown()
    }

    /// Found by the soak (Auth0): a heartbeat check finished while a renewal held the
    /// store's lock; when the check got the lock its read of the vault failed, and it fell
    /// back on the record it had taken *before* waiting — the one the renewal had just
    /// replaced. It saved that record over the renewed one and adopted it, so the next
    /// renewal presented a spent refresh token (reuse detection: logged out).
    @Test func aCheckThatWaitedForARenewalNeverSavesTheRecordTheRenewalReplaced() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        try await harness.renewWhileTheHeartbeatWaits { store.failReads.store(1, ordering: .relaxed) }
        let renewed = try #require(harness.provider.validAccessToken)
        await settle("the check was committed") { store.failReads.load(ordering: .relaxed) == 0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await store.base.string("session")?.contains(renewed) == true, "the store keeps the renewed record")
        #expect(try await harness.client.accessToken() == renewed, "memory keeps the renewed record")
        // The next renewal presents the newest refresh token.
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    /// The same race with a save retried by the heartbeat: the retry must not write the
    /// unsaved record over the one a renewal saved while it waited for the lock.
    @Test func aSaveRetryThatWaitedForARenewalNeverOverwritesItsRecord() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        store.failWrites.store(1, ordering: .relaxed)
        try await harness.client.renew()
        #expect(await harness.client.hasUnsavedTokens)
        // The renewal's own retry of the save fails too; it renews from memory and holds the lock.
        store.failWrites.store(1, ordering: .relaxed)
        try await harness.renewWhileTheHeartbeatWaits(renewals: 2, heartbeatChecks: false) {
            store.failReads.store(1, ordering: .relaxed)
        }
        let renewed = try #require(harness.provider.validAccessToken)
        await settle("the heartbeat's retry ran") { store.failReads.load(ordering: .relaxed) == 0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await store.base.string("session")?.contains(renewed) == true, "the store keeps the renewed record")
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    /// The same race one step later: the renewal has saved and released the lock, but has
    /// not yet put its record in memory when the check's locked section begins. A failed
    /// read must not make the check fall back on the record memory still holds.
    @Test func aCheckThatRunsBeforeTheRenewalsRecordIsInMemoryNeverSavesTheOldOne() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        try await harness.renewWhileTheHeartbeatWaits {
            store.slowUnlocks.store(1, ordering: .relaxed)
            store.failReads.store(1, ordering: .relaxed)
        }
        let renewed = try #require(harness.provider.validAccessToken)
        await settle("the check was committed") { store.failReads.load(ordering: .relaxed) == 0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await store.base.string("session")?.contains(renewed) == true, "the store keeps the renewed record")
        #expect(try await harness.client.accessToken() == renewed, "memory keeps the renewed record")
        _ = try await harness.client.renew()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    /// Found by the soak (Auth0): a client shut down (an app restart) between a failed save
    /// of rotated tokens and the next retry; the next start read the spent refresh token,
    /// presented it, and reuse detection logged the user out. Shutting down saves first.
    @Test func shutdownSavesTokensAFailedSaveLeftInMemory() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        let harness = try Harness(store: store, lifetime: 300, options: options)
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(1, ordering: .relaxed)
        let renewed = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        await harness.client.shutdown()
        #expect(try await store.base.string("session")?.contains(renewed) == true, "saved at shutdown")
        harness.clock.advance(by: .seconds(301))
        let restarted = harness.restarted(options: options)
        try await restarted.start()
        _ = try await restarted.accessToken()
        #expect(restarted.state == .established, "the newest refresh token was presented")
        await restarted.shutdown()
    }

    /// Found by the soak (Auth0, an in-process restart while the old client's renewal was
    /// on the wire): another writer rotated the refresh token in the store; this client's
    /// renewal could not read the vault under the lock and renewed from what it last knew —
    /// a spent token, so reuse detection logged the user out. With a refresh token at
    /// stake an unreadable vault now fails the renewal (kept session, retried) instead.
    @Test func anUnreadableVaultNeverRenewsWithARefreshTokenAnotherWriterMayHaveSpent() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        let harness = try Harness(store: store, lifetime: 3600, options: options)
        try await harness.login()
        // Another client on the same store (another process) rotates the refresh token.
        let other = harness.restarted(options: options)
        try await other.start()
        try await other.renew()
        await other.shutdown()
        store.failReads.store(1, ordering: .relaxed)
        let refused = await authError { try await harness.client.renew() }
        #expect(refused?.code == .storage)
        #expect(harness.client.state == .established, "an unreadable store is not a logout")
        // Once the vault reads again, the renewal starts from the other writer's record.
        try await harness.client.renew()
        #expect(harness.client.state == .established)
        #expect(try await harness.client.accessToken() == harness.provider.validAccessToken)
        await harness.client.shutdown()
    }

    /// Found by the state machine's model check (depth 11): a rotated token the store
    /// refused, then another process signs out (the store emptied), then the store heals —
    /// the save retry wrote the session back over that logout. It now signs out as the
    /// other process did, and the store stays empty.
    @Test func aSaveRetryNeverWritesASessionBackOverAnotherProcesssLogout() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(1, ordering: .relaxed)
        _ = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        // Another process signs out: the stored session is removed.
        #expect(try await store.base.remove(SessionOptions().vaultEntryName))
        await settle("a retry is armed") { harness.clock.nextDeadline.map { $0.timeIntervalSince(harness.clock.now) < 5 } ?? false }
        harness.clock.advance(by: .seconds(5))
        await settle("signed out as the other process did") { harness.client.state == .notLoggedIn }
        #expect(!(await harness.client.hasUnsavedTokens))
        #expect(try await store.base.get(SessionOptions().vaultEntryName) == nil, "nothing written back")
        #expect(harness.logs.all.contains { $0.contains("removed by another process") })
        await harness.client.shutdown()
    }
}
