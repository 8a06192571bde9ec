import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// Work of one session that overlaps the start or the end of another: a login whose save
/// meets a logout, a renewal that outlives its session while the next session renews, a
/// login that replaces a session whose renewed tokens the store has not taken yet.
@Suite(.noSecretLeaks) struct SessionOverlapTests {
    /// A login answered while the test holds the store's lock: its save waits, a logout
    /// begins and waits too. Whatever order the store takes them in, the logout wins: the
    /// store ends empty and a restart finds nobody.
    @Test func aLoginsSaveMeetingALogoutStaysLoggedOut() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.client.start()
        let lockHeld = Gate(), lockTaken = Gate()
        let holder = Task {
            try await harness.store.withExclusiveLock {
                lockTaken.open()
                await lockHeld.wait()
            }
        }
        await lockTaken.wait()
        let login = Task { await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse")) } }
        await settle("the login was answered") { harness.provider.counts.login == 1 && harness.provider.validAccessToken != nil }
        for _ in 0..<100 { await Task.yield() }
        let logout = Task { try await harness.client.logout() }
        for _ in 0..<100 { await Task.yield() }
        lockHeld.open()
        try await holder.value
        try await logout.value
        #expect(await login.value?.code == .cancelled, "the logout overtook the login")
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil, "the login's session did not outlive the logout in the store")
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil))
        try await restarted.start()
        #expect(restarted.state == .notLoggedIn)
        await restarted.shutdown()
        await harness.client.shutdown()
    }

    /// A renewal of the first session waits in its app handler while the user logs out and
    /// in again, and the new session renews under the store's lock. When the old handler
    /// answers, its renewal renews nothing: it never presents the old refresh token, and the
    /// new session's tokens stay in the store.
    @Test(.timeLimit(.minutes(1)))
    func aRenewalOutlivingItsSessionLeavesTheNextSessionAlone() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let handler = Gate()
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                await handler.wait()
                return RenewalPreparation()
            }
        }
        let outlived = Task { await authError { try await harness.client.renew() } }
        await settle("the old session's renewal waits in the app's handler") { handler.waiting == 1 }
        try await harness.client.logout()
        harness.provider.state.withLock { $0.prepareHandler = nil }
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        let renewGate = Gate()
        harness.provider.gateRenewals { await renewGate.wait() }
        let current = Task { try await harness.client.renew() }
        await settle("the new session's renewal is on the wire, holding the store's lock") { harness.provider.counts.renew == 1 }
        handler.open()
        #expect(await outlived.value?.code == .cancelled, "the old session's renewal renewed nothing")
        renewGate.open()
        try await current.value
        let renewed = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == 1, "one renewal reached the provider")
        #expect(try await harness.storedRecord()?.contains(renewed) == true)
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    /// A renewal's save failed, so memory holds the only copy of the rotated refresh token;
    /// the token then expires and the app logs in again. A shutdown while that login is on
    /// the wire must still save the rotated tokens: the next start would otherwise present
    /// the spent refresh token (reuse detection ends the session at Auth0).
    ///
    /// The login sets the session aside (`keptDuringLogin`) rather than dropping it, so the
    /// shutdown's save retry still has the record the rotated tokens belong to.
    @Test(.timeLimit(.minutes(1)))
    func aShutdownDuringALoginFromTokenExpiredSavesTheUnsavedTokens() async throws {
        try await shutdownDuringALoginFromTokenExpired()
    }

    private func shutdownDuringALoginFromTokenExpired() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        store.failWrites.store(1, ordering: .relaxed)
        try await harness.client.renew()
        #expect(await harness.client.hasUnsavedTokens, "the renewal's save failed")
        let rotated = try #require(harness.provider.validRefreshToken)
        harness.clock.advance(by: .seconds(301))
        await settle("the token expired") { harness.client.state == .tokenExpired }
        let loginGate = Gate()
        harness.provider.state.withLock { $0.loginGate = { await loginGate.wait() } }
        let login = Task { await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "wrong")) } }
        await settle("the login is on the wire") { harness.provider.counts.login == 2 }
        await harness.client.shutdown()
        loginGate.open()
        _ = await login.value
        #expect(try await harness.storedRecord()?.contains(rotated) == true, "shutdown saved the rotated tokens")

        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await restarted.start()
        _ = try await restarted.accessToken()
        #expect(restarted.state == .established, "the next client presented the newest refresh token")
        await restarted.shutdown()
    }
}
