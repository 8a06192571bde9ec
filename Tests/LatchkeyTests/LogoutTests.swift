import Foundation
import Latchkey
import Testing

/// Plain and secure logout.
@Suite(.noSecretLeaks) struct LogoutTests {
    @Test func plainLogoutClearsVaultMemoryAndStreams() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        try await harness.client.logout()
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil)
        #expect(harness.client.currentUser == nil && harness.client.currentSession == nil)
        var users = harness.client.userChanges.makeAsyncIterator()
        #expect(await users.next() == .unavailable(.notLoggedIn))
        #expect(await authError { _ = try await harness.client.accessToken() }?.code == .notLoggedIn)
        #expect(harness.provider.counts.revoke == 0)
        // A restart finds nothing.
        let restored = harness.restarted()
        try await restored.start()
        #expect(restored.state == .notLoggedIn)
    }

    @Test func secureLogoutRevokesFirst() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        try await harness.client.logout(revoke: .required)
        #expect(harness.provider.counts.revoke == 1)
        #expect(harness.provider.validAccessToken == nil)
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil)
    }

    @Test(arguments: [
        ScriptedProvider.Behaviour.failTransport,
        .fail(AuthError(.transient, "Internal server error", httpStatus: 500)),
        .fail(AuthError.rateLimited(retryAfter: .seconds(5), "slow down")),
    ])
    func aFailingSecureLogoutLeavesEverythingInPlace(failure: ScriptedProvider.Behaviour) async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: .seconds(180)))
        try await harness.login()
        let storedBefore = try await harness.storedRecord()
        let token = try await harness.client.accessToken()
        harness.provider.script(revoke: [failure])
        let error = await authError { try await harness.client.logout(revoke: .required) }
        #expect(error != nil)
        #expect(harness.client.state == .established)
        #expect(try await harness.storedRecord() == storedBefore)
        #expect(try await harness.client.accessToken() == token)
        #expect(harness.client.currentUser?.id == "user-1")
        await harness.clock.waitForSleepers(3)  // the heartbeat, the renewal and expiry timers
        harness.clock.advance(by: .seconds(180))
        await settle("heartbeat still running") { harness.provider.counts.validate == 1 }
        await harness.client.shutdown()
    }

    @Test func logoutDuringARenewalWinsOverTheRenewal() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        let caller = Task { await authError { _ = try await harness.client.accessToken() } }
        await settle("renewal started") { harness.provider.counts.renew == 1 }
        let logout = Task { try await harness.client.logout() }
        for _ in 0..<100 { await Task.yield() }
        gate.open()
        try await logout.value
        _ = await caller.value
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil, "the renewal did not resurrect the session")
    }
}
