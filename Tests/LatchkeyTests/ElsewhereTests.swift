import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// Another process signs out (the stored session is removed) or renews, and this client
/// learns it from its own locked sections: the check at start, the heartbeat's, a renewal.
/// Before the checks told the state machine, it went on publishing `established` — the user
/// shown, every token call failing `notLoggedIn` — for a session memory had dropped, and
/// `tokenExpired` for a session memory held fresh tokens of.
@Suite(.noSecretLeaks) struct ElsewhereTests {
    @Test func theHeartbeatsCheckSignsOutAsTheOtherProcessDid() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        #expect(try await store.base.remove(SessionOptions().vaultEntryName))
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat checked the session") { harness.provider.counts.validate == 1 }
        await settle("signed out as the other process did") { harness.client.state == .notLoggedIn }
        #expect(harness.client.currentUser == nil)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == .notLoggedIn)
        #expect(try await store.base.get(SessionOptions().vaultEntryName) == nil, "nothing written back")
        #expect(harness.logs.all.contains { $0.contains("removed by another process") })
        await harness.client.shutdown()
    }

    @Test func theCheckAtStartSignsOutAsTheOtherProcessDid() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(renewsProactively: false)
        let harness = try Harness(store: store, options: options)
        try await harness.login()
        await harness.client.shutdown()
        // The other process signs out while this one's check of what it read is on the wire.
        harness.provider.gateValidations { _ = try? await store.base.remove(SessionOptions().vaultEntryName) }
        let restarted = harness.restarted(options: options)
        try await restarted.start()
        #expect(harness.provider.counts.validate == 1)
        #expect(restarted.state == .notLoggedIn)
        #expect(restarted.currentUser == nil)
        let error = await authError { _ = try await restarted.accessToken() }
        #expect(error?.code == .notLoggedIn)
        #expect(try await store.base.get(SessionOptions().vaultEntryName) == nil, "nothing written back")
        // Signed out for the machine too: a login takes it from there.
        harness.provider.gateValidations(nil)
        try await restarted.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(restarted.state == .established)
        await restarted.shutdown()
    }

    @Test func aRenewalSignsOutAsTheOtherProcessDid() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        #expect(try await store.base.remove(SessionOptions().vaultEntryName))
        let error = await authError { try await harness.client.renew() }
        #expect(error?.code == .notLoggedIn)
        #expect(harness.client.state == .notLoggedIn)
        #expect(harness.client.currentUser == nil)
        #expect(try await store.base.get(SessionOptions().vaultEntryName) == nil, "nothing written back")
        await harness.client.shutdown()
    }

    @Test func aCheckThatTakesTokensAnotherProcessRenewedEstablishesTheSessionAgain() async throws {
        let harness = try Harness(lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        let other = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await other.start(validating: false)
        await harness.clock.waitForSleepers(3)  // the heartbeat and the two expiry timers
        let gate = Gate()
        harness.provider.gateValidations { await gate.wait() }
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat's check is on the wire") { harness.provider.counts.validate == 1 }
        harness.clock.advance(by: .seconds(3600))
        await settle("the access token expired") { harness.client.state == .tokenExpired }
        try await other.renew()
        gate.open()
        await settle("the check took the other process's tokens") {
            await harness.client.accessTokenExpiresAt.map { $0 > harness.clock.now } ?? false
        }
        #expect(harness.client.state == .established, "fresh tokens, as after a renewal")
        #expect(try await harness.client.accessToken() == harness.provider.validAccessToken)
        #expect(harness.provider.counts.renew == 1, "nothing renewed again")
        await other.shutdown()
        await harness.client.shutdown()
    }

    /// The same through a save retry: rotated tokens the store refused, the access token
    /// expired, another process signs in again; the retry finds its session in the store
    /// and takes it.
    @Test func aSaveRetryThatTakesAnotherProcesssSessionEstablishesTheSessionAgain() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        let harness = try await Self.owingRotatedTokens(store, options: options)
        harness.clock.advance(by: .seconds(3601))
        await settle("the access token expired") { harness.client.state == .tokenExpired }
        try await Self.anotherProcessSignsInAgainAndTheRetryTakesIt(harness, store, options: options)
    }

    /// And while a kept session waits for the user (its renewal was answered
    /// `needsUserAction`): the session another process signed in is fresh, so the wait ends
    /// as it would after a renewal here, for the state machine as for the client.
    @Test func aSaveRetryThatTakesAnotherProcesssSessionEndsTheWaitForTheUser() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        let harness = try await Self.owingRotatedTokens(store, options: options)
        let action = UserAction(kind: "mfa")
        harness.provider.setDefaults(renew: .fail(AuthError.needsUserAction(action, "Multifactor authentication required")))
        let error = await authError { try await harness.client.renew() }
        #expect(error?.code == .needsUserAction)
        #expect(harness.client.state == .needsUserAction(action))
        try await Self.anotherProcessSignsInAgainAndTheRetryTakesIt(harness, store, options: options)
    }

    /// Signed in, then renewed with the store refusing writes: memory owes it the rotated
    /// tokens (the store keeps refusing until told otherwise).
    private static func owingRotatedTokens(_ store: FlakyStore, options: SessionOptions) async throws -> Harness {
        let harness = try Harness(store: store, lifetime: 3600, options: options)
        try await harness.login()
        store.failWrites.store(1_000_000, ordering: .relaxed)
        harness.clock.advance(by: .seconds(3601))
        _ = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        return harness
    }

    /// The store heals, another process signs out and in again, and the save retry finds
    /// that session and takes it: established, as after a renewal. Shuts both clients down.
    private static func anotherProcessSignsInAgainAndTheRetryTakesIt(
        _ harness: Harness, _ store: FlakyStore, options: SessionOptions
    ) async throws {
        store.failWrites.store(0, ordering: .relaxed)
        let other = harness.restarted(options: options)
        try await other.start(validating: false)
        try await other.logout()
        try await other.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        harness.clock.advance(by: .seconds(31))
        await settle("the save retry took the other process's session") { !(await harness.client.hasUnsavedTokens) }
        #expect(harness.client.state == .established, "fresh tokens, as after a renewal")
        #expect(try await harness.client.accessToken() == harness.provider.validAccessToken)
        await other.shutdown()
        await harness.client.shutdown()
    }

    /// A check that takes tokens another process renewed while the store refuses writes:
    /// the vault holds them, so nothing is owed to it. Marked unsaved (with themselves as
    /// what they replaced), they were written back over the other process's next rotation
    /// once the store could not be read — its refresh token lost, and this client's next
    /// renewal presenting a spent one (found by the model check with another process
    /// writing, at depth 10).
    @Test func aCheckThatTakesAnotherProcesssTokensWhileWritesFailOwesTheStoreNothing() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        let other = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await other.start(validating: false)
        await harness.clock.waitForSleepers(3)  // the heartbeat and the two expiry timers
        try await other.renew()
        store.failWrites.store(1_000_000, ordering: .relaxed)
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat's check took the other process's tokens") {
            (try? await harness.client.accessToken()) == harness.provider.validAccessToken
        }
        #expect(!(await harness.client.hasUnsavedTokens), "the store holds them")
        store.failWrites.store(0, ordering: .relaxed)
        try await other.renew()
        let rotated = try #require(try await harness.storedRecord())
        store.failReads.store(1_000_000, ordering: .relaxed)
        let error = await authError { try await harness.client.renew() }
        #expect(error?.code == .storage, "no refresh token presented that the store cannot vouch for")
        store.failReads.store(0, ordering: .relaxed)
        #expect(try await harness.storedRecord() == rotated, "the other process's rotation is kept")
        try await harness.client.renew()
        #expect(harness.client.state == .established)
        try await other.renew()
        #expect(other.state == .established)
        await other.shutdown()
        await harness.client.shutdown()
    }
}
