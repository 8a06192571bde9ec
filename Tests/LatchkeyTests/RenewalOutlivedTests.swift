import Foundation
import Latchkey
import LatchkeySecrets
import Synchronization
import Testing

/// A renewal still on the wire when the client's background work stops (a shutdown, a
/// logout) has the provider rotate the refresh token all the same: what it brings back
/// must be kept for the session it renewed, and never bring back a session that ended.
@Suite(.noSecretLeaks) struct RenewalOutlivedTests {
    /// Shuts `client` down while `gate` holds a renewal on the wire, then lets the
    /// renewal answer; returns once the shutdown has.
    static func shutDown(_ client: AuthClient, releasing gate: Gate) async throws {
        let shutdown = Task { await client.shutdown() }
        try await Task.sleep(for: .milliseconds(50))
        gate.open()
        await shutdown.value
    }

    /// Found by the soak (Auth0, seed 8): an in-process restart shut the client down while
    /// its timer renewal was on the wire; the rotated tokens' save failed, the renewal saw
    /// its generation gone and dropped them, and the next client presented the spent
    /// refresh token — reuse detection logged the user out.
    @Test(arguments: [false, true])
    func shutdownKeepsTheTokensOfARenewalOnTheWire(timerRenewal: Bool) async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: timerRenewal)
        let harness = try Harness(store: store, lifetime: 300, options: options)
        try await harness.login()
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        let renewal: Task<Void, Never>? = timerRenewal ? nil : Task { _ = try? await harness.client.renew() }
        if timerRenewal { harness.clock.advance(by: .seconds(290)) }
        await settle("the renewal is on the wire, holding the store's lock") { harness.provider.counts.renew == 1 }
        store.failWrites.store(1, ordering: .relaxed)
        try await Self.shutDown(harness.client, releasing: gate)
        await renewal?.value
        let rotated = try #require(harness.provider.validAccessToken)
        #expect(store.failWrites.load(ordering: .relaxed) == 0, "the renewal's own save failed")
        #expect(try await store.base.string("session")?.contains(rotated) == true, "shutdown saved the rotated tokens")

        harness.clock.advance(by: .seconds(301))
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await restarted.start()
        _ = try await restarted.accessToken()
        #expect(restarted.state == .established, "the next client presented the newest refresh token")
        #expect(harness.provider.counts.renew == 2)
        await restarted.shutdown()
    }

    /// The heartbeat finds a step the user must take while a renewal is on the wire: the
    /// renewal no longer serves callers, but a shutdown still waits for it and saves what
    /// it brought back.
    @Test func shutdownWaitsForARenewalAPendingUserActionDetached() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 3600, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        let renewal = Task { _ = try? await harness.client.renew() }
        await settle("the renewal is on the wire") { harness.provider.counts.renew == 1 }
        harness.provider.script(validate: [.fail(AuthError.needsUserAction(UserAction(kind: "mfa"), "step up"))])
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat asks for the user") { harness.client.pendingUserAction != nil }
        store.failWrites.store(1, ordering: .relaxed)
        try await Self.shutDown(harness.client, releasing: gate)
        await renewal.value
        let rotated = try #require(harness.provider.validRefreshToken)
        #expect(try await store.base.string("session")?.contains(rotated) == true, "shutdown saved the rotated tokens")
    }

    /// A renewal still in its preparation — an app handler that has not answered (a
    /// prompt, a slow backend) — has not reached the provider: shutdown does not wait for
    /// it, and once the handler answers the renewal stops there.
    @Test(.timeLimit(.minutes(1)))
    func shutdownDoesNotWaitForAnAppHandlerAndTheRenewalStopsAfterIt() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let handler = Gate()
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                await handler.wait()
                return RenewalPreparation()
            }
        }
        let renewal = Task { await authError { try await harness.client.renew() } }
        try await Task.sleep(for: .milliseconds(50))
        await harness.client.shutdown()
        #expect(harness.provider.counts.renew == 0)
        handler.open()
        #expect(await renewal.value?.code == .cancelled)
        #expect(harness.provider.counts.renew == 0, "no renewal after the shutdown")
    }

    /// A store that refuses every try at shutdown too: the tokens stay unsaved (logged),
    /// and shutdown still returns.
    @Test func shutdownReturnsWhenTheStoreRefusesEveryTry() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        let renewal = Task { _ = try? await harness.client.renew() }
        await settle("the renewal is on the wire") { harness.provider.counts.renew == 1 }
        store.failWrites.store(1_000, ordering: .relaxed)
        try await Self.shutDown(harness.client, releasing: gate)
        await renewal.value
        #expect(harness.logs.all.contains { $0.contains("could not be saved before shutdown") })
        #expect(harness.client.state == .established, "shutdown is not a logout")
    }

    /// A logout while a renewal is on the wire: the renewal's tokens (saved or not) never
    /// bring the session back into the store.
    @Test(arguments: [0, 1])
    func aLogoutDuringARenewalStaysALogout(failedWrites: Int) async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        let renewal = Task { await authError { try await harness.client.renew() } }
        await settle("the renewal is on the wire") { harness.provider.counts.renew == 1 }
        store.failWrites.store(failedWrites, ordering: .relaxed)
        let logout = Task { try await harness.client.logout() }
        // The logout has ended the generation (it drops the record before it waits for
        // the store) before the renewal may answer.
        await settle("the logout began") { await harness.client.lastValidatedAt == nil }
        gate.open()
        try await logout.value
        #expect(await renewal.value?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await store.base.string("session") == nil, "the store stays empty")
        #expect(harness.client.state == .notLoggedIn)
        #expect(!(await harness.client.hasUnsavedTokens))
        await harness.client.shutdown()
    }

    /// A login tried from `tokenExpired` while a renewal is on the wire: the login clears
    /// memory, the renewal's first save fails and its second reaches the vault, and then the
    /// login fails (a wrong password keeps the stored session). The session that comes back
    /// must carry the rotated tokens, not the spent ones memory held before.
    @Test func aFailedLoginDuringARenewalKeepsTheRotatedTokens() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        await settle("the token expired") { harness.client.state == .tokenExpired }
        let renewalGate = Gate()
        harness.provider.gateRenewals { await renewalGate.wait() }
        let renewal = Task { await authError { try await harness.client.renew() } }
        await settle("the renewal is on the wire") { harness.provider.counts.renew == 1 }
        let loginGate = Gate()
        harness.provider.state.withLock { $0.loginGate = { await loginGate.wait() } }
        let login = Task { await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "wrong")) } }
        await settle("the login is on the wire") { harness.provider.counts.login == 2 }
        store.failWrites.store(1, ordering: .relaxed)
        renewalGate.open()
        #expect(await renewal.value?.code == .cancelled, "the login overtook the renewal")
        let rotated = try #require(harness.provider.validRefreshToken)
        await settle("the rotated tokens reached the store") { (try? await store.base.string("session")?.contains(rotated)) == true }
        loginGate.open()
        #expect(await login.value != nil, "wrong password")
        // The set-aside session comes back with the rotated tokens the vault took, which
        // are live: signed in, not expired (found by the state machine run beside the
        // client: the actor brought back the spent record and published tokenExpired).
        #expect(harness.client.state == .established, "a failed login keeps the stored session, renewed")
        let renewals = harness.provider.counts.renew
        _ = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == renewals, "the rotated access token is live: nothing to renew")
        #expect(!harness.logs.all.contains { $0.contains("invalid_grant") }, "the spent refresh token was never presented")
        await harness.client.shutdown()
    }

    /// As above, but the store refuses the outlived renewal's second save too: the rotated
    /// tokens must not live only in a log line. They join the session the login set aside,
    /// owed to the store, and the save retry writes them (found by the state machine run
    /// beside the client: the machine kept them, the client did not).
    @Test func aFailedLoginDuringARenewalWhoseSavesBothFailKeepsTheRotatedTokens() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        await settle("the token expired") { harness.client.state == .tokenExpired }
        let renewalGate = Gate()
        harness.provider.gateRenewals { await renewalGate.wait() }
        let renewal = Task { await authError { try await harness.client.renew() } }
        await settle("the renewal is on the wire") { harness.provider.counts.renew == 1 }
        let loginGate = Gate()
        harness.provider.state.withLock { $0.loginGate = { await loginGate.wait() } }
        let login = Task { await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "wrong")) } }
        await settle("the login is on the wire") { harness.provider.counts.login == 2 }
        store.failWrites.store(2, ordering: .relaxed)
        renewalGate.open()
        #expect(await renewal.value?.code == .cancelled, "the login overtook the renewal")
        let rotated = try #require(harness.provider.validRefreshToken)
        #expect(await harness.client.hasUnsavedTokens, "owed to the store, not forgotten")
        loginGate.open()
        #expect(await login.value != nil, "wrong password")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        await settle("the save retry wrote the rotated tokens") { (try? await store.base.string("session")?.contains(rotated)) == true }
        #expect(!(await harness.client.hasUnsavedTokens))
        _ = try await harness.client.accessToken()
        #expect(!harness.logs.all.contains { $0.contains("invalid_grant") }, "the spent refresh token was never presented")
        await harness.client.shutdown()
    }

    /// A renewal that took the store's lock after another process had renewed twice —
    /// memory held the first of those rotations (a check took it), the store the second —
    /// rotated the store's tokens; a shutdown outlived it and the store refused both its
    /// saves. The rotated tokens are the session's newest, whatever memory's older copy:
    /// kept and saved by the shutdown. Before, they were dropped with a log line and the
    /// store kept a spent token (found by the model check with another process writing).
    @Test(.timeLimit(.minutes(1)))
    func anOutlivedRenewalOfTokensAnotherProcessRotatedIsKept() async throws {
        let store = try FlakyStore()
        let options = SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false)
        let harness = try Harness(store: store, extendsSessions: true, lifetime: 3600, options: options)
        try await harness.login()
        let other = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await other.start(validating: false)
        await harness.clock.waitForSleepers(3)  // the heartbeat and the two expiry timers
        // This client's extension waits in its preparation (outside the lock) while the
        // other process renews, this one's check takes that, and the other renews again.
        let preparing = Gate()
        let first = Mutex(true)
        let entered = Mutex(false)
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                let isFirst = first.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                guard isFirst else { return RenewalPreparation() }
                entered.withLock { $0 = true }
                await preparing.wait()
                return RenewalPreparation()
            }
        }
        let renewal = Task { await authError { try await harness.client.renew(sessionDuration: .seconds(7200)) } }
        await settle("the extension is preparing") { entered.withLock { $0 } }
        try await other.renew()
        harness.clock.advance(by: .seconds(180))
        await settle("the heartbeat's check took the other process's tokens") {
            (try? await harness.client.accessToken()) == harness.provider.validAccessToken
        }
        try await other.renew()
        let onTheWire = Gate()
        harness.provider.gateRenewals { await onTheWire.wait() }
        preparing.open()
        await settle("the extension is on the wire") { harness.provider.counts.renew == 3 }
        let shutdown = Task { await harness.client.shutdown() }
        await settle("the client is shutting down") { await authError { _ = try await harness.client.accessToken() }?.code == .cancelled }
        store.failWrites.store(2, ordering: .relaxed)
        onTheWire.open()
        #expect(await renewal.value?.code == .cancelled, "the shutdown outlived the renewal")
        await shutdown.value
        let rotated = try #require(harness.provider.validRefreshToken)
        #expect(try await store.base.string("session")?.contains(rotated) == true, "the store holds the live refresh token")
        await other.shutdown()
    }
}
