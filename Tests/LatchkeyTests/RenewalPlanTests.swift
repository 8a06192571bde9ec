import Foundation
import Testing

@testable import Latchkey

/// `RenewalPlan.proportional`: the renewal comes before the expiry whatever the times.
@Suite struct RenewalPlanTests {
    @Test func theRenewalIsTheFractionOfTheUsableLifetime() {
        let issued = Date(timeIntervalSince1970: 1_767_225_600)
        let plan = RenewalPlan.proportional(issuedAt: issued, expiresAt: issued.addingTimeInterval(300))
        #expect(plan.expiresAt == issued.addingTimeInterval(300))
        #expect(plan.renewAt == issued.addingTimeInterval(240))
    }

    /// Found by the FuzzStytch target (Fuzz/Regressions/FuzzStytch/renewal-after-expiry-huge-times):
    /// a session JWT with `iat` -1.7e308 and `exp` 1.7e308 made the lifetime, and the
    /// renewal, +infinity — after the expiry.
    @Test func timesTooFarApartForTheirDifferenceStillRenewBeforeTheExpiry() throws {
        for (issued, expires) in [(-1.7e308, 1.7e308), (-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude), (-1e308, 1.5e308)] {
            let plan = RenewalPlan.proportional(issuedAt: Date(timeIntervalSince1970: issued), expiresAt: Date(timeIntervalSince1970: expires))
            let renewAt = try #require(plan.renewAt), expiresAt = try #require(plan.expiresAt)
            #expect(renewAt.timeIntervalSinceReferenceDate.isFinite)
            #expect(renewAt <= expiresAt)
            #expect(renewAt > Date(timeIntervalSince1970: issued))
        }
        let margin = RenewalPlan.proportional(
            issuedAt: Date(timeIntervalSince1970: -1.7e308), expiresAt: Date(timeIntervalSince1970: 1.7e308),
            fraction: 0.8, margin: 300)
        #expect(try #require(margin.renewAt) <= (try #require(margin.expiresAt)))
    }

    /// The one measure of a token's time-to-live, the client's and `StoredTokens`': seconds
    /// to the plan's expiry by the local clock, negative once past, unlimited without one.
    @Test func timeLeftIsMeasuredToThePlansExpiry() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(RenewalPlan(expiresAt: now.addingTimeInterval(90), renewAt: nil).timeLeft(at: now) == 90)
        #expect(RenewalPlan(expiresAt: now.addingTimeInterval(-5), renewAt: nil).timeLeft(at: now) == -5)
        #expect(RenewalPlan.none.timeLeft(at: now) == .infinity)
    }

    /// The default minimum time-to-live: the app's when it set one, else the provider's.
    @Test func theDefaultMinimumTTLIsTheAppsElseTheProviders() {
        let provider = ScriptedProvider(clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(SessionOptions().minimumTokenTTL(for: provider) == .seconds(30))
        #expect(SessionOptions(minimumTokenTTL: .seconds(7)).minimumTokenTTL(for: provider) == .seconds(7))
    }
}
