import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyJWT
import Testing

/// Auth0.swift's renewal rules, against an emulator that answers as Auth0 does: the
/// session's end is the first login's, a refresh for an API asks for `openid`,
/// `access_denied` is a refusal, and tokens are renewed 60 s before they expire.
@Suite("Auth0 renewal rules: session_expiry, openid, access_denied, minTTL")
struct RenewalRulesTests {
    @Test func sessionExpiryIsFixedAtTheFirstLogin() async throws {
        var seed = Auth0Seed.standard
        seed.sessionLifetime = 7_200
        seed.accessTokenLifetime = 3_600
        let harness = try await Auth0Harness(seed: seed, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let end = Auth0Harness.start.addingTimeInterval(7_200 - 30)
        #expect(harness.client.currentSession?.expiresAt == end)
        // The refresh's ID token carries a later session_expiry (the emulator rolls it, as
        // activity does at Auth0): the session still ends at the login's.
        harness.advance(by: 3_601)
        let before = try await harness.secrets()
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 1)
        #expect(try await harness.secrets()[2] != before[2], "the refresh answered a new ID token")
        #expect(harness.client.currentSession?.expiresAt == end)
        harness.advance(by: 7_170 - 3_601)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.providerCode == "session_expired" || error?.code == .notLoggedIn)
        await settle("the session ended at the login's session_expiry") { harness.client.state == .notLoggedIn }
    }

    @Test func aRefreshForAnAudienceAsksForOpenIDAndGetsAnIDToken() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let before = try await harness.secrets()
        let token = try await harness.client.accessToken(scope: "read:data", audience: "https://api.example.com")
        #expect(try JWT.decode(token).claims.audience?.contains("https://api.example.com") == true)
        #expect(await harness.refreshGrants() == 1)
        // Without openid in the scope Auth0 answers without an ID token.
        let after = try await harness.secrets()
        #expect(after.count == 3)
        #expect(after.last != before.last, "a new ID token came back")
        #expect(harness.client.state == .established)
    }

    @Test func accessDeniedOnRefreshIsARefusalThatIsNotRetried() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await harness.emulator.control.denyAuth0Access(userID: "auth0|alice")
        let error = await authError { try await harness.client.renew() }
        #expect(error?.code == .needsUserAction)
        #expect(error?.providerCode == "access_denied")
        guard case .needsUserAction(let action) = harness.client.state else {
            Issue.record("state \(harness.client.state)")
            return
        }
        #expect(action.kind == "access_denied")
        // Nothing is scheduled to ask again, and the session is kept.
        await settle("no renewal timer is left") { harness.clock.sleeperCount == 0 }
        harness.advance(by: 86_400 * 2)
        #expect(await harness.refreshGrants() == 1)
        #expect(try await harness.store.get(SessionOptions().vaultEntryName) != nil)
        // Once access is allowed again, the app's renewal succeeds.
        try await harness.emulator.control.denyAuth0Access(userID: "auth0|alice", false)
        try await harness.client.renew()
        #expect(harness.client.state == .established)
    }

    @Test func aScopeBeyondTheGrantIsRefusedWithoutTouchingTheSession() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let error = await authError { _ = try await harness.client.accessToken(scope: "openid profile admin") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.providerCode == "access_denied")
        #expect(harness.client.state == .established)
    }

    @Test func tokensAreRenewedWhenLessThanSixtySecondsAreLeft() async throws {
        var seed = Auth0Seed.standard
        seed.accessTokenLifetime = 3_600
        let harness = try await Auth0Harness(seed: seed, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        #expect(harness.provider.defaultMinimumTokenTTL == .seconds(60))
        harness.advance(by: 3_600 - 90)
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 0, "90 s left is enough")
        harness.advance(by: 45)
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 1, "45 s left is not")
        // The app's own minimum still wins.
        let lenient = try await Auth0Harness(
            seed: seed,
            options: SessionOptions(
                heartbeatInterval: nil, renewsProactively: false,
                minimumTokenTTL: .seconds(10)))
        defer { Task { await lenient.stop() } }
        try await lenient.loginAlice()
        lenient.advance(by: 3_600 - 45)
        _ = try await lenient.client.accessToken()
        #expect(await lenient.refreshGrants() == 0)
    }
}
