import Foundation
import Latchkey
import Testing

/// A session that ended (the provider's verdict, a logout) whose removal from the store
/// failed is removed later — by retries with back-off, by the shutdown — and never comes
/// back at the next start; a session saved meanwhile (a login here or in another process)
/// is never removed by those retries. Found by the soak (Stytch): an expiry ended a
/// session, the store refused the removal, a restart read the ended session back and,
/// unable to reach the provider, published it as signed in until a renewal was refused.
@Suite(.noSecretLeaks, .timeLimit(.minutes(1))) struct EndedSessionClearTests {
    private static let expired = AuthError(.unrecoverable, "Session expired", providerCode: "unauthorized_credentials", httpStatus: 401)

    @Test func aSessionTheProviderEndedIsRemovedAfterTheStoreRefusedTheFirstTry() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [.fail(Self.expired)])
        store.failRemoves.store(2, ordering: .relaxed)  // the removal and its immediate second try
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat ended the session") { harness.client.state == .notLoggedIn }
        #expect(try await harness.storedRecord() != nil, "both tries failed")
        #expect(harness.logs.all.contains { $0.contains("cannot clear the stored session; retrying") })

        await harness.clock.waitForSleepers(1)  // the removal's retry, alone: nothing else runs for an ended session
        harness.clock.advance(by: .seconds(3))
        await settle("the retry removed the ended session") { (try? await harness.storedRecord()) == nil }
        #expect(harness.client.state == .notLoggedIn)

        // The next start finds nothing, and asks the provider nothing.
        await harness.client.shutdown()
        let validations = harness.provider.counts.validate
        let restarted = harness.restarted()
        try await restarted.start()
        #expect(restarted.state == .notLoggedIn)
        #expect(harness.provider.counts.validate == validations)
        await restarted.shutdown()
    }

    @Test func aLogoutWhoseRemovalFailedThrowsAndTheShutdownFinishesTheRemoval() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        // The logout's two tries and the shutdown's first two fail; its third succeeds.
        store.failRemoves.store(4, ordering: .relaxed)
        let error = await authError { try await harness.client.logout() }
        #expect(error?.code == .storage)
        #expect(harness.client.state == .notLoggedIn, "memory and streams are cleared anyway")
        #expect(try await harness.storedRecord() != nil)

        await harness.client.shutdown()
        #expect(try await harness.storedRecord() == nil, "the shutdown removed it")
        #expect(store.failRemoves.load(ordering: .relaxed) == 0)
        let restarted = harness.restarted()
        try await restarted.start()
        #expect(restarted.state == .notLoggedIn, "a logged-out session never comes back")
        await restarted.shutdown()
    }

    /// A signed-in client whose logout could not remove the session: the logout threw
    /// `storage`, and the removal's retry sleeps on the clock.
    private func loggedOutWithTheRemovalRefused() async throws -> Harness {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        store.failRemoves.store(2, ordering: .relaxed)
        #expect(await authError { try await harness.client.logout() }?.code == .storage)
        await harness.clock.waitForSleepers(1)  // the removal's retry
        return harness
    }

    @Test func aLoginAfterAFailedRemovalIsNeverRemovedByTheRetry() async throws {
        let harness = try await loggedOutWithTheRemovalRefused()
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        let token = try #require(harness.provider.validAccessToken)

        harness.clock.advance(by: .seconds(300))
        #expect(harness.client.state == .established)
        #expect(try await harness.storedRecord()?.contains(token) == true, "the new session stays in the store")
        await harness.client.shutdown()
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil))
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(try await restarted.accessToken() == token)
        await restarted.shutdown()
    }

    @Test func aSessionAnotherProcessSavedIsNeverRemovedByTheRetry() async throws {
        let harness = try await loggedOutWithTheRemovalRefused()

        // Another client on the same store signs in before the retry runs.
        let other = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await other.start()
        #expect(other.state == .established, "it read the session the failed removal left")
        try await other.logout()
        try await other.login(ScriptedCredentials(user: "user-2", password: "correct horse"))
        let token = try #require(harness.provider.validAccessToken)

        harness.clock.advance(by: .seconds(3))
        await settle("the retry looked, found another session and stopped") { harness.clock.sleeperCount == 1 }  // the other's expiry timer
        #expect(try await harness.storedRecord()?.contains(token) == true, "the other process's session stays")
        await harness.client.shutdown()
        #expect(try await harness.storedRecord()?.contains(token) == true, "and the shutdown leaves it too")
        #expect(other.state == .established)
        await other.shutdown()
    }
}

extension EndedSessionClearTests {
    /// One refusal is retried at once: nothing is left for a killed process to leave behind.
    @Test func aSingleRefusedRemovalIsTriedAgainAtOnce() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        store.failRemoves.store(1, ordering: .relaxed)
        try await harness.client.logout()
        #expect(try await harness.storedRecord() == nil)
        #expect(harness.clock.sleeperCount == 0, "no retry left to run")
        await harness.client.shutdown()
    }
}
