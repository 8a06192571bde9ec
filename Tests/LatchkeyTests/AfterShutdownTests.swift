import Foundation
import Latchkey
import Testing

/// Nothing renews once the client has shut down: a check still on the wire when the
/// shutdown began may answer afterwards, but its refusal starts no renewal. Found by the
/// soak (Auth0, seed 33): an in-process restart shut the client down while its heartbeat
/// check was on the wire; the check's 401 came back after the shutdown, the shut-down
/// client renewed (rotating the refresh token) and its save failed, so the new client
/// read the spent refresh token, presented it, and reuse detection logged the user out.
@Suite(.noSecretLeaks, .timeLimit(.minutes(1))) struct AfterShutdownTests {
    @Test func aCheckThatAnswersAfterTheShutdownStartsNoRenewal() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false)
        let harness = try Harness(store: store, options: options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        let gate = Gate()
        harness.provider.gateValidations { await gate.wait() }
        harness.provider.script(validate: [.fail(AuthError(.renewAndRecheck, "userinfo said 401", httpStatus: 401))])
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat's check is on the wire") { harness.provider.counts.validate == 1 }

        await harness.client.shutdown()
        store.failWrites.store(1, ordering: .relaxed)  // a renewal's save would fail, and its tokens be lost
        gate.open()
        await settle("the check's refusal was dropped") {
            harness.logs.all.contains { $0.contains("the session's background work stopped while it was being checked") }
        }
        #expect(harness.provider.counts.renew == 0, "a shut-down client renews nothing")
        #expect(try await harness.storedRecord() == stored)

        // The next client renews from the stored refresh token: it is not spent.
        harness.provider.gateValidations(nil)
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await restarted.start()
        try await restarted.renew()
        #expect(restarted.state == .established)
        await restarted.shutdown()
    }

    /// A check that succeeds after the shutdown writes nothing: the next start owns the store.
    @Test func aCheckThatAnswersAfterTheShutdownWritesNothing() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        let gate = Gate()
        harness.provider.gateValidations { await gate.wait() }
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat's check is on the wire") { harness.provider.counts.validate == 1 }

        await harness.client.shutdown()
        let writes = store.writes.load(ordering: .relaxed)
        gate.open()
        try await Task.sleep(for: .milliseconds(100))  // the answer is dropped: nothing to wait for
        #expect(store.writes.load(ordering: .relaxed) == writes, "the late answer wrote nothing")
        #expect(harness.provider.counts.renew == 0)
    }

    /// Found by the soak (social.plus, seed 80): an app restart shut the client down while
    /// its retry of an unreadable store was reading; the read answered afterwards and the
    /// client moved to `notLoggedIn` — a state change its finished streams never delivered.
    @Test func aRestoreRetryThatReadsAfterTheShutdownChangesNoState() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        store.failReads.store(1, ordering: .relaxed)
        try await harness.client.start()
        #expect(harness.client.state == .restoring)
        var states = harness.client.stateChanges.makeAsyncIterator()

        let gate = Gate()
        store.readGate.withLock { $0 = { await gate.wait() } }
        await harness.clock.waitForSleepers(1)  // the restore's retry
        harness.clock.advance(by: .seconds(5))
        await settle("the retry is reading the store") { gate.waiting == 1 }
        await harness.client.shutdown()
        gate.open()
        try await Task.sleep(for: .milliseconds(100))  // the retry's read has answered by now

        #expect(
            !harness.logs.all.contains { $0.contains("session state changed") && $0.contains("from=restoring") },
            "no state change after the shutdown")
        #expect(await states.next() == .restoring)
        #expect(await states.next() == nil, "the stream finished at the last state the client took")
        #expect(harness.client.state == .restoring)
    }
}
