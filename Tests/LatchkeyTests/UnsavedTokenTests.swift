import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// A rotated refresh token whose save failed is kept, marked and saved again — never
/// handed out and forgotten (the Auth0.swift #490 failure).
@Suite(.noSecretLeaks) struct UnsavedTokenTests {
    @Test func aFailedSaveOfRenewedTokensIsRetriedOnTheNextCall() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(1, ordering: .relaxed)
        let renewed = try await harness.client.accessToken()
        #expect(harness.provider.counts.renew == 1)
        #expect(await harness.client.hasUnsavedTokens)
        #expect(try await store.base.string("session")?.contains(renewed) == false, "the first save failed")
        #expect(harness.logs.all.contains { $0.contains("could not be persisted") })

        // The next call saves it before anything else.
        #expect(try await harness.client.accessToken() == renewed)
        #expect(!(await harness.client.hasUnsavedTokens))
        #expect(try await store.base.string("session")?.contains(renewed) == true)

        // A restart now presents the newest refresh token: no reuse, no logout.
        await harness.client.shutdown()
        harness.clock.advance(by: .seconds(301))
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(harness.provider.counts.renew == 2)
        await restarted.shutdown()
    }

    @Test func theHeartbeatRetriesTheSaveToo() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        store.failWrites.store(1, ordering: .relaxed)
        let renewed = try await harness.client.accessToken()
        #expect(await harness.client.hasUnsavedTokens)
        harness.clock.advance(by: .seconds(180))
        await settle("saved by the heartbeat") { !(await harness.client.hasUnsavedTokens) }
        #expect(try await store.base.string("session")?.contains(renewed) == true)
        await harness.client.shutdown()
    }

    @Test func aStoreThatKeepsFailingNeverLosesTheNewestTokensInMemory() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        store.failWrites.store(1_000, ordering: .relaxed)
        for round in 1...3 {
            harness.clock.advance(by: .seconds(301))
            let token = try await harness.client.accessToken()
            #expect(token == harness.provider.validAccessToken, "round \(round): the newest token, renewed with the newest refresh token")
        }
        #expect(harness.provider.counts.renew == 3, "no refresh token was reused (the scripted server refuses reuse)")
        #expect(harness.client.state == .established, "a storage failure never logs out")
        store.failWrites.store(0, ordering: .relaxed)
        _ = try await harness.client.accessToken()
        #expect(try await store.base.string("session")?.contains(harness.provider.validAccessToken!) == true)
        await harness.client.shutdown()
    }
}
