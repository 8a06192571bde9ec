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

    /// Found by the soak (Auth0, seed 123, on a CPU shared with a build): a renewal asked
    /// for just before an app restart shut the client down was listed, but its task had
    /// not run yet. The shutdown waits only for renewals on the wire, and the task, once
    /// it ran, took the generation the shutdown had just begun for its own: it renewed
    /// after the shutdown returned, its save failed, and the next client presented the
    /// spent refresh token (reuse detection: logged out). A renewal now belongs to the
    /// generation that asked for it. The interleaving is the executor's to choose, so
    /// each round races a renewal with a shutdown and checks what a restart would find.
    @Test func aRenewalAskedForAsTheClientShutsDownLeavesTheStoreCurrent() async throws {
        var late = 0
        for _ in 1...100 {
            let store = try FlakyStore()
            let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
            let harness = try Harness(store: store, options: options)
            try await harness.login()
            // The renewal's save fails: only the shutdown (waiting for it) saves its tokens.
            store.failWrites.store(1, ordering: .relaxed)
            let client = harness.client
            async let renewal: Void = Self.renewIgnoringErrors(client)
            async let stop: Void = client.shutdown()
            _ = await (renewal, stop)
            let renewed = harness.provider.counts.renew
            if renewed > 0, try await store.base.string("session")?.contains(try #require(harness.provider.validAccessToken)) != true {
                late += 1
            }
        }
        #expect(late == 0, "a renewal ran after the shutdown and its tokens were lost (\(late) of 100 rounds)")
    }

    private static func renewIgnoringErrors(_ client: AuthClient) async {
        _ = try? await client.renew()
    }
}
