import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Testing

@Suite("Auth0 renewal, rotation and classification over loopback HTTP")
struct RenewalTests {
    static let oneDay: TimeInterval = 86_400

    @Test func thousandConcurrentCallersShareOneRotatingRefresh() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let before = try await harness.secrets()
        harness.advance(by: Self.oneDay + 1)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1_000 { group.addTask { try await harness.client.accessToken() } }
            var all = Set<String>()
            for try await token in group { all.insert(token) }
            return all
        }
        #expect(tokens.count == 1)
        #expect(await harness.refreshGrants() == 1)
        let after = try await harness.secrets()
        #expect(after.count == 3 && before.count == 3)
        #expect(after[1] != before[1], "the rotated refresh token is stored")
        // The rotated token works: a second renewal succeeds, so reuse detection never fired.
        harness.advance(by: Self.oneDay + 1)
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 2)
        #expect(harness.client.state == .established)
        for secret in try await harness.secrets() + before {
            #expect(!harness.logs.all.joined(separator: "\n").contains(secret))
        }
    }

    @Test func anAnswerWithoutARefreshTokenKeepsTheOld() async throws {
        var seed = Auth0Seed.standard
        seed.rotateRefreshTokens = false
        let harness = try await Auth0Harness(seed: seed)
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let before = try await harness.secrets()
        harness.advance(by: Self.oneDay + 1)
        _ = try await harness.client.accessToken()
        let after = try await harness.secrets()
        #expect(after[1] == before[1])
        #expect(after[0] != before[0])
        harness.advance(by: Self.oneDay + 1)
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 2)
    }

    @Test func aScopeChangeRenewsOnceWithTheScope() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let first = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 0)
        let narrowed = try await harness.client.accessToken(scope: "openid profile")
        #expect(narrowed != first)
        #expect(await harness.refreshGrants() == 1)
        _ = try await harness.client.accessToken(scope: "profile openid")
        #expect(await harness.refreshGrants() == 1)
    }

    @Test func userinfo401RenewsOnceAndRechecks() async throws {
        let options = SessionOptions(heartbeatInterval: .seconds(180))
        let harness = try await Auth0Harness(options: options)
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await harness.emulator.control.expireSessions(of: "auth0|alice", provider: .auth0)
        await harness.clock.waitForSleepers(3)  // the heartbeat, the renewal and expiry timers
        harness.advance(by: 180)
        await settle("the heartbeat renewed and rechecked") { await harness.count("GET", "/userinfo") == 2 }
        #expect(await harness.refreshGrants() == 1)
        #expect(harness.client.state == .established)
    }

    @Test func mfaRequiredOnRefreshWaitsForTheUserWithoutRetries() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await harness.emulator.control.requireAuth0MFAOnNextRefresh(userID: "auth0|alice")
        let error = await authError { try await harness.client.renew() }
        #expect(error?.code == .needsUserAction)
        guard case .needsUserAction(let action) = harness.client.state else {
            Issue.record("state \(harness.client.state)")
            return
        }
        #expect(action.kind == "mfa")
        // Nothing retries in the background while the user is asked (the mfa_token lives 10 minutes).
        harness.advance(by: 300)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await harness.refreshGrants() == 1)
        try await harness.client.login(Auth0Credentials.mfa(otp: Auth0Seed.User.defaultOTP))
        #expect(harness.client.state == .established)
    }

    @Test func revokedRefreshTokenClearsTheSession() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await harness.emulator.control.revokeSessions(of: "auth0|alice", provider: .auth0)
        harness.advance(by: Self.oneDay + 1)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.isInvalidRefreshToken == true)
        #expect(error?.httpStatus == 403)
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.store.string(SessionOptions().vaultEntryName) == nil)
    }

    @Test func aReusedRefreshTokenRevokesTheFamilyAndLogsOutCleanly() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let stale = try #require(try await harness.store.get(SessionOptions().vaultEntryName))
        harness.advance(by: Self.oneDay + 1)
        _ = try await harness.client.accessToken()
        // Another copy of the app still holds the spent token (a restore from a backup).
        let other = try MemorySecretStore(namespace: "other")
        try await other.set(SessionOptions().vaultEntryName, stale)
        let copy = AuthClient(
            provider: harness.provider, store: other, options: harness.options, transport: URLSessionTransport(),
            clock: harness.clock)
        try await copy.start()
        #expect(copy.state == .notLoggedIn)
        #expect(await copy.endError?.isInvalidRefreshToken == true)
        await copy.shutdown()
        // The family is gone for everyone: the next renewal of the first client ends cleanly too.
        harness.advance(by: Self.oneDay + 1)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.isInvalidRefreshToken == true)
        #expect(harness.client.state == .notLoggedIn)
    }

    @Test(arguments: [
        (EmulatorFault.Kind.status(503), AuthError.Code.transient),
        (.status(500), .transient),
        (.status(429), .rateLimited),
        (.malformedBody, .transient),
    ])
    func faultsOnRefreshKeepTheSession(_ fault: EmulatorFault.Kind, _ expected: AuthError.Code) async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        await harness.emulator.control.inject(EmulatorFault(route: tokenRoute, grant: "refresh_token", kind: fault))
        harness.advance(by: Self.oneDay + 1)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == expected)
        if expected == .rateLimited {
            #expect(error?.retryAfter == .seconds(60), "x-ratelimit-reset is now + 60 s")
            #expect(error?.httpStatus == 429)
        }
        #expect(harness.client.state == .tokenExpired)
        #expect(try await harness.store.string(SessionOptions().vaultEntryName) != nil)
        // Once the fault is gone, the session renews.
        _ = try await harness.client.accessToken()
        #expect(harness.client.state == .established)
    }

    @Test func aTimeoutIsTransient() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        let configuration = try Auth0Configuration(domain: harness.auth0.domain, clientID: harness.auth0.clientID, baseURL: harness.auth0.baseURL)
        let provider = Auth0Provider(configuration: configuration, transport: TimeoutTransport(base: URLSessionTransport()), clock: harness.clock)
        await harness.emulator.control.inject(EmulatorFault(route: userInfoRoute, kind: .delay(milliseconds: 1_500)))
        let tokens = SessionTokens(accessToken: "anything")
        do {
            _ = try await provider.validate(AuthenticatedSession(tokens: tokens))
            Issue.record("expected a timeout")
        } catch {
            #expect(provider.classify(error).code == .transient)
        }
    }

    @Test func logoutRevokesTheRefreshTokenFamily() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let refreshToken = try await harness.secrets()[1]
        try await harness.client.logout(revoke: .required)
        #expect(harness.client.state == .notLoggedIn)
        #expect(await harness.count("POST", "/oauth/revoke") == 1)
        let provider = harness.provider
        let error = await authError {
            _ = try await provider.renew(
                RenewalRequest(reason: .forced), current: AuthenticatedSession(tokens: SessionTokens(accessToken: "x", refreshToken: refreshToken)),
                preparation: RenewalPreparation())
        }
        #expect(error?.isInvalidRefreshToken == true)
    }

    @Test func secureLogoutKeepsEverythingWhenRevocationFails() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        await harness.emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/revoke"), kind: .status(503)))
        let error = await authError { try await harness.client.logout(revoke: .required) }
        #expect(error?.code == .transient)
        #expect(harness.client.state == .established)
        // A plain logout clears even when Auth0 fails.
        await harness.emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/revoke"), kind: .status(503)))
        try await harness.client.logout(revoke: .bestEffort)
        #expect(harness.client.state == .notLoggedIn)
    }

    @Test func unreachableAuth0IsTransientEverywhere() async throws {
        // Nothing listens on port 9 of loopback: every call is refused (no response).
        let configuration = try Auth0Configuration(domain: "tenant.example.com", clientID: "client", baseURL: URL(string: "http://127.0.0.1:9/"))
        let provider = Auth0Provider(configuration: configuration, transport: URLSessionTransport(), clock: ManualClock())
        let current = AuthenticatedSession(tokens: SessionTokens(accessToken: "a", refreshToken: "r"))
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await provider.renew(RenewalRequest(reason: .expiring), current: current, preparation: RenewalPreparation()) },
            { _ = try await provider.validate(current) },
            { try await provider.revoke(current) },
        ]
        for call in calls {
            do {
                try await call()
                Issue.record("expected a failure")
            } catch {
                #expect(provider.classify(error).code == .transient)
            }
        }
    }

    @Test func sessionExpiryEndsTheSession30SecondsBefore() async throws {
        var seed = Auth0Seed.standard
        seed.sessionLifetime = 7_200
        seed.accessTokenLifetime = 3_600
        let harness = try await Auth0Harness(seed: seed)
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let end = Auth0Harness.start.addingTimeInterval(7_200 - 30)
        #expect(harness.client.currentSession?.expiresAt == end)
        harness.advance(by: 7_200 - 31)
        _ = try await harness.client.accessToken(minTTL: .zero)
        harness.advance(by: 2)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.providerCode == "session_expired" || error?.code == .notLoggedIn)
        await settle("the session ended") { harness.client.state == .notLoggedIn }
        #expect(await harness.client.endError?.providerCode == "session_expired")
    }
}

/// A transport whose requests time out after half a second.
struct TimeoutTransport: HTTPTransport {
    let base: any HTTPTransport
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var copy = request
        copy.timeout = .milliseconds(500)
        return try await base.send(copy)
    }
}
