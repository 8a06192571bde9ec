import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// `StoredTokens.usable`: the stored token where a client would hand it out as it is, by
/// the client's own rules, and `nil` wherever a client must decide.
@Suite(.noSecretLeaks) struct StoredTokensTests {
    @Test func theStoredTokenIsTheOneAClientWouldHandOut() async throws {
        let harness = try Harness()
        try await harness.login()
        let token = try await harness.client.accessToken()
        await harness.client.shutdown()
        let tokens = await StoredTokens.usable(provider: harness.provider, store: harness.store, clock: harness.clock)
        #expect(tokens?.accessToken == token)

        let restarted = harness.restarted()
        try await restarted.start(validating: false)
        #expect(try await restarted.accessToken() == token)
        #expect(harness.provider.counts.renew == 0)
        await restarted.shutdown()
    }

    @Test func aTokenWithLessLeftThanTheMinimumIsTheClientsToRenew() async throws {
        let harness = try Harness(lifetime: 3600)
        try await harness.login()
        await harness.client.shutdown()
        // 100 s left: enough for the default minimum (the provider's 30 s), not for 2 minutes.
        harness.clock.advance(by: .seconds(3500))
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, clock: harness.clock) != nil)
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, minTTL: .seconds(120), clock: harness.clock) == nil)
        let asked = SessionOptions(minimumTokenTTL: .seconds(120))
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, options: asked, clock: harness.clock) == nil)
        // The client, asked the same, renews: the answers agree.
        let restarted = harness.restarted(options: asked)
        try await restarted.start(validating: false)
        _ = try await restarted.accessToken()
        #expect(harness.provider.counts.renew == 1)
        await restarted.shutdown()
        // Expired: nothing to hand out.
        harness.clock.advance(by: .seconds(7200))
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, clock: harness.clock) == nil)
    }

    @Test func nothingStoredAnotherEndpointsRecordOrDamagedBytesAreNil() async throws {
        let harness = try Harness()
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, clock: harness.clock) == nil)
        try await harness.login()
        await harness.client.shutdown()
        let other = ScriptedProvider(identifier: "other", clock: harness.clock)
        #expect(await StoredTokens.usable(provider: other, store: harness.store, clock: harness.clock) == nil)
        try await harness.store.set(SessionOptions().vaultEntryName, Array("not a vault record".utf8))
        #expect(await StoredTokens.usable(provider: harness.provider, store: harness.store, clock: harness.clock) == nil)
        #expect(try await harness.store.get(SessionOptions().vaultEntryName) == Array("not a vault record".utf8), "left in place")
    }

    @Test func aFailingStoreIsNilAndNothingIsEverWritten() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store)
        try await harness.login()
        await harness.client.shutdown()
        let writes = store.writes.load(ordering: .relaxed)
        let validations = harness.provider.counts.validate
        store.failReads.store(1, ordering: .relaxed)
        #expect(await StoredTokens.usable(provider: harness.provider, store: store, clock: harness.clock) == nil)
        #expect(await StoredTokens.usable(provider: harness.provider, store: store, clock: harness.clock) != nil)
        harness.clock.advance(by: .seconds(7200))
        #expect(await StoredTokens.usable(provider: harness.provider, store: store, clock: harness.clock) == nil)
        #expect(store.writes.load(ordering: .relaxed) == writes)
        #expect(harness.provider.counts.renew == 0)
        #expect(harness.provider.counts.validate == validations)
    }
}
