import Foundation
import Latchkey
import Testing

extension Harness {
    /// The race the soak found between a renewal and the heartbeat (``UnsavedTokenTests``,
    /// ``UnsavedTokenRaceTests``): renews while the heartbeat (every 180 s) waits for the
    /// store's lock the renewal holds. The provider holds the renewal's answer until the
    /// heartbeat's turn is due and — when `heartbeatChecks` — its check has answered; then
    /// `faults` arm the store and the renewal is released. Returns when the renewal has.
    /// `renewals` is the provider's renewal count once this one is on the wire.
    func renewWhileTheHeartbeatWaits(renewals: Int = 1, heartbeatChecks: Bool = true, faults: () -> Void) async throws {
        let gate = Gate()
        provider.gateRenewals { await gate.wait() }
        let renewal = Task { try await client.renew() }
        await settle("the renewal holds the store's lock") { provider.counts.renew == renewals }
        clock.advance(by: .seconds(180))
        if heartbeatChecks {
            await settle("the heartbeat checked the session") { provider.counts.validate == 1 }
        }
        try await Task.sleep(for: .milliseconds(50))
        faults()
        gate.open()
        try await renewal.value
        provider.gateRenewals(nil)
    }
}
