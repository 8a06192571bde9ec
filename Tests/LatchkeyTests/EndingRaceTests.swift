import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// Soak seed 153 (social.plus): the heartbeat's check answered a ban while the app's
/// best-effort logout waited for its revocation; the logout went on while the store removed
/// the ended session, and the end, resuming after it, moved the client to `terminated`
/// after the logout had ended the session for the machine (`state machine disagrees`).
@Suite(.noSecretLeaks) struct EndingRaceTests {
    @Test func aLogoutWhileTheEndedSessionIsRemovedHasTheLastWord() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [
            .fail(AuthError.terminated(.globalBan, "User is globally banned", providerCode: "400312", httpStatus: 403))
        ])
        let revocation = Gate()
        harness.provider.gateRevocations { await revocation.wait() }
        let logout = Task { try await harness.client.logout(revoke: .bestEffort) }
        await settle("the logout waits for its revocation") { harness.provider.counts.revoke == 1 }
        let removal = Gate()
        store.removeGate.withLock { $0 = { await removal.wait() } }
        harness.clock.advance(by: .seconds(180))
        await settle("the ban's end removes the stored session") { removal.waiting == 1 }
        revocation.open()
        try await Task.sleep(for: .milliseconds(50))
        removal.open()
        try await logout.value
        #expect(harness.client.state == .notLoggedIn, "the logout's word")
        #expect(try await harness.storedRecord() == nil)
        await harness.client.shutdown()
    }
}
