import Foundation
import Latchkey
import Testing

/// Renewing a session kept while the provider waits for the user (a renewal answered
/// `needsUserAction`) once its access token has expired.
@Suite(.noSecretLeaks) struct KeptSessionRenewalTests {
    @Test func anExpiredKeptSessionIsRenewedWithoutAnIllegalMove() async throws {
        let harness = try Harness(lifetime: 1000, options: SessionOptions(heartbeatInterval: .seconds(180)))
        try await harness.login()
        let action = UserAction(kind: "mfa")
        harness.provider.setDefaults(renew: .fail(AuthError.needsUserAction(action, "Multifactor authentication required")))
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(800))
        await settle("waiting for the user") { harness.client.state == .needsUserAction(action) }
        harness.clock.advance(by: .seconds(3600))
        harness.provider.setDefaults(renew: .succeed)
        // The diagram has no move from needsUserAction to tokenExpired: the state waits for
        // the renewal, then is established.
        try await harness.client.renew()
        #expect(harness.client.state == .established)
        #expect(!harness.logs.all.contains { $0.contains("illegal") }, "\(harness.logs.all.filter { $0.contains("illegal") })")
        await harness.client.shutdown()
    }
}
