import Foundation
import Latchkey
import Testing

/// A renewal that hands back the same token strings with a new lifetime (a provider that
/// reissues an unchanged access token; found by the state machine run beside the client in
/// the soak): the session is established again and its timers follow the new expiry.
@Suite(.noSecretLeaks) struct RenewalSameTokenTests {
    @Test func aRenewalToTheSameTokenEstablishesTheSessionAgain() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        let token = try await harness.client.accessToken()
        harness.clock.advance(by: .seconds(301))
        await settle("the token expired") { harness.client.state == .tokenExpired }
        harness.provider.state.withLock { $0.renewsToSameTokens = true }
        #expect(try await harness.client.accessToken() == token, "the provider gave the same token back")
        #expect(harness.provider.counts.renew == 1)
        #expect(harness.client.state == .established, "a live token is not tokenExpired")
        // The expiry timer follows the renewed lifetime.
        harness.clock.advance(by: .seconds(301))
        await settle("the renewed token expired") { harness.client.state == .tokenExpired }
        await harness.client.shutdown()
    }
}
