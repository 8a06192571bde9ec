import Foundation
import Latchkey
import Synchronization
import Testing

/// Renewal requests: minTTL, scope, extension, the expiry timer, and app code that calls
/// back into the client during a renewal.
@Suite(.noSecretLeaks) struct RenewalRequestTests {
    @Test func accessTokenDefaultsToTheOptionsMinimumTTL() async throws {
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false, minimumTokenTTL: .seconds(600))
        let harness = try Harness(lifetime: 3600, options: options)
        try await harness.login()
        harness.clock.advance(by: .seconds(3000))  // 600 s left: still enough
        _ = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == 0)
        harness.clock.advance(by: .seconds(1))  // 599 s left: renew
        _ = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == 1)
        await harness.client.shutdown()
    }

    @Test func aTokenShorterThanMinTTLIsAnErrorNamingBothFiguresNotALoop() async throws {
        let harness = try Harness(lifetime: 45, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        for _ in 0..<3 {
            let error = await authError { _ = try await harness.client.accessToken(minTTL: .seconds(60)) }
            #expect(error?.code == .largeMinTTL)
            #expect(error?.message.contains("45") == true && error?.message.contains("60") == true, "\(error?.message ?? "")")
        }
        #expect(harness.provider.counts.renew == 1, "one renewal; its token, as short-lived, is not renewed again and again")
        // Issue time unknown: one renewal, then the error.
        harness.provider.state.withLock { $0.nextLifetime = 50 }
        harness.clock.advance(by: .seconds(20))
        let error = await authError { _ = try await harness.client.accessToken(minTTL: .seconds(40)) }
        #expect(error == nil || error?.code == .largeMinTTL)
        await harness.client.shutdown()
    }

    @Test func differentScopesRenewSeparatelyAndTheSameScopeOnce() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        async let a = harness.client.accessToken(scope: "read:items")
        async let b = harness.client.accessToken(scope: "read:items")
        async let c = harness.client.accessToken(scope: "write:items")
        await settle("renewals waiting") { harness.provider.counts.renew >= 1 }
        gate.open()
        let (first, second, third) = try await (a, b, c)
        #expect(first == second, "the same scope shares one renewal")
        #expect(third != first)
        #expect(harness.provider.counts.renew == 2)
        let scopes = harness.provider.state.withLock { $0.renewRequests.compactMap(\.scope) }
        #expect(Set(scopes) == ["read:items", "write:items"])
        await harness.client.shutdown()
    }

    @Test func anExtensionAskedDuringAPlainRenewalIsNotSwallowed() async throws {
        let harness = try Harness(extendsSessions: true, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        let gate = Gate()
        harness.provider.gateRenewals { await gate.wait() }
        async let plain = harness.client.accessToken()
        await settle("plain renewal in flight") { harness.provider.counts.renew == 1 }
        async let extended: Void = harness.client.renew(sessionDuration: .seconds(3600))
        await settle("extension queued") { harness.provider.counts.renew >= 1 }
        gate.open()
        _ = try await (plain, extended)
        let durations = harness.provider.state.withLock { $0.renewDurations }
        #expect(durations.contains(.seconds(3600)), "the extension really happened: \(durations)")
        await harness.client.shutdown()
    }

    @Test func theExpiryTimerMovesToTokenExpiredWithNobodyAsking() async throws {
        let harness = try Harness(lifetime: 600, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let states = Recorder(harness.client.stateChanges)
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(599))
        await Task.yield()
        #expect(harness.client.state == .established)
        harness.clock.advance(by: .seconds(1))
        await settle("tokenExpired published") { states.values.last == .tokenExpired }
        // A renewal brings it back.
        _ = try await harness.client.accessToken()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    @Test func aHandlerThatCallsSendDuringTheRenewalCompletes() async throws {
        let harness = try Harness(lifetime: 1000, options: SessionOptions(heartbeatInterval: nil, renewsProactively: true))
        try await harness.login()
        let client = harness.client
        let handlerStatus = Mutex<Int?>(nil)
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                // App code: asks the app's backend for a fresh auth token, through the client.
                let response = try await client.send(TransportRequest(url: URL(string: "https://api.example.com/auth-token")!))
                handlerStatus.withLock { $0 = response.status }
                return RenewalPreparation(credential: "fresh-auth-token")
            }
        }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(800))  // the renewal timer fires
        await settle("renewed") { harness.provider.counts.renew == 1 }
        #expect(handlerStatus.withLock { $0 } == 200, "the handler's request went out with the current token")
        #expect(harness.provider.state.withLock { $0.renewPreparations.first?.credential } == "fresh-auth-token")
        // And a caller waiting on the same renewal meanwhile is not stuck either.
        _ = try await harness.client.accessToken()
        await harness.client.shutdown()
    }

    @Test func aHandlerCallingAccessTokenOnAnExpiredTokenGetsAnErrorNotADeadlock() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let client = harness.client
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                _ = try await client.accessToken()
                return RenewalPreparation()
            }
        }
        harness.clock.advance(by: .seconds(301))
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == .invalidState)
        #expect(harness.client.state == .tokenExpired, "kept, not logged out")
        #expect(harness.provider.counts.renew == 0)
        await harness.client.shutdown()
    }
}
