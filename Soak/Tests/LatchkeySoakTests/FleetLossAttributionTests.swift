import Foundation
import LatchkeyEmulator
import Testing

@testable import LatchkeySoak

/// The fleet judge's attribution on hand-built tenant logs: what a SIGKILL of the renewing
/// instance explains (and which users' losses follow from it), and what it does not.
@Suite struct FleetLossAttributionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// Family `f` of `user`: generation 1 exchanged at 0 s, presented again at 30 s.
    private static func reuse(_ family: String, user: String, revoked: Bool = true) -> [Auth0RefreshRecord] {
        [
            Auth0RefreshRecord(date: at(0), family: family, generation: 1, outcome: .rotated, issuedGeneration: 2, user: user),
            Auth0RefreshRecord(
                date: at(30), family: family, generation: 1, outcome: revoked ? .reuseRevokedFamily : .rotated,
                issuedGeneration: revoked ? nil : 3, user: user),
        ]
    }

    private static func attribute(
        _ log: [Auth0RefreshRecord], kills: [FleetKill], evidence: FleetLossAttribution.Evidence = .init()
    ) -> FleetLossAttribution.Attribution {
        var details: [String] = []
        return FleetLossAttribution.attribute(log, kills: kills, evidence: evidence, details: &details)
    }

    @Test func anAnswerInFlightToAKilledInstanceIsExplainedAndSoIsItsUsersLoss() {
        let attribution = Self.attribute(Self.reuse("f", user: "auth0|alice"), kills: [FleetKill(instance: 1, date: Self.at(0.01))])
        #expect(attribution.causes == [.inFlightToAKilledInstance: 1])
        #expect(attribution.explainedReuses == 1 && attribution.explainedExchangedTwice == 0)
        #expect(attribution.explainedUsers == ["auth0|alice"])
    }

    @Test func withAReuseIntervalTheSecondExchangeIsExplainedAndRevokesNobody() {
        let attribution = Self.attribute(
            Self.reuse("f", user: "auth0|alice", revoked: false), kills: [FleetKill(instance: 0, date: Self.at(0.02))])
        #expect(attribution.explainedExchangedTwice == 1 && attribution.explainedReuses == 0)
        #expect(attribution.explainedUsers.isEmpty)
    }

    /// Bob's rotated token received by instance 2 at 0.05 s, and instance 2 killed at `seconds`.
    private static func receivedThenKilled(at seconds: TimeInterval) -> FleetLossAttribution.Attribution {
        var evidence = FleetLossAttribution.Evidence()
        evidence.received["f#2"] = (instance: 2, date: at(0.05))
        return attribute(reuse("f", user: "auth0|bob"), kills: [FleetKill(instance: 2, date: at(seconds))], evidence: evidence)
    }

    @Test func aTokenReceivedAndKilledWithinTheSaveWindowIsExplained() {
        let attribution = Self.receivedThenKilled(at: 6.9)
        #expect(attribution.causes == [.killedBeforeItsSave: 1])
        #expect(attribution.explainedUsers == ["auth0|bob"])
    }

    @Test func aTokenHeldUnsavedPastTheSaveWindowIsNotExplainedByALaterKill() {
        let attribution = Self.receivedThenKilled(at: 24.7)
        #expect(attribution.causes == [.unsavedPastTheSaveWindow: 1])
        #expect(attribution.explainedReuses == 0 && attribution.explainedUsers.isEmpty)
    }

    @Test func aSavedTokenPresentedAgainOrALiveHolderIsNeverExplained() {
        var saved = FleetLossAttribution.Evidence()
        saved.received["f#2"] = (instance: 0, date: Self.at(0.05))
        saved.saved["f#2"] = Self.at(0.06)
        let kill = [FleetKill(instance: 0, date: Self.at(1))]
        #expect(Self.attribute(Self.reuse("f", user: "u"), kills: kill, evidence: saved).explainedUsers.isEmpty)
        var alive = FleetLossAttribution.Evidence()
        alive.received["f#2"] = (instance: 1, date: Self.at(0.05))
        let attribution = Self.attribute(Self.reuse("f", user: "u"), kills: kill, evidence: alive)
        #expect(attribution.causes == [.neverSavedInstanceAlive: 1])
        #expect(attribution.explainedReuses == 0)
    }

    @Test func anAnswerLostWithNoKillNearItIsNotExplained() {
        let attribution = Self.attribute(Self.reuse("f", user: "u"), kills: [])
        #expect(attribution.causes == [.answerLostNoKill: 1])
        #expect(attribution.explainedReuses == 0 && attribution.explainedUsers.isEmpty)
    }

    /// A family whose newest token no store holds at the end (found by a traced run: the
    /// token was in flight to an instance killed 0.1 s later, in the run's last seconds).
    @Test func aNewestTokenInFlightToAKilledInstanceIsExplainedAtTheEndToo() {
        let kill = FleetKill(instance: 0, date: Self.at(0.1))
        let (cause, killed) = FleetLossAttribution.cause(
            of: "f#10", exchangedAt: Self.at(0), before: .distantFuture, kills: [kill], evidence: .init())
        #expect(cause == .inFlightToAKilledInstance && killed?.instance == 0)
        let (alive, _) = FleetLossAttribution.cause(of: "f#10", exchangedAt: Self.at(0), before: .distantFuture, kills: [], evidence: .init())
        #expect(alive == .answerLostNoKill && !alive.isExplained)
    }

    @Test func onlyAKillOfTheSoleHolderExplainsALoss() {
        #expect(FleetLossCause.allCases.filter(\.isExplained) == [.inFlightToAKilledInstance, .killedBeforeItsSave])
    }

    @Test func theTenantsUsersMapToTheFleetsAndNoOthers() {
        #expect(FleetConfiguration.userID(tenantUserID: FleetConfiguration.tenantUserID(7)) == FleetConfiguration.userID(7))
        #expect(FleetConfiguration.userID(tenantUserID: "auth0|alice") == nil)
        #expect(FleetConfiguration.userID(tenantUserID: "auth0|fleetx") == nil)
    }
}
