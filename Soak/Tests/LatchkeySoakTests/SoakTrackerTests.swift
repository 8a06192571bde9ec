import Testing

@testable import LatchkeySoak

/// The judge of session ends on reports built by hand: an event performed while the
/// user's login was under way may have ended the session that login was creating (soak
/// seeds 46, 148 and 183: a Stytch `session_not_found` after a revocation performed
/// between a login's request and its answer, counted as a wrongful logout).
@Suite struct SoakTrackerTests {
    private func tracker() throws -> SoakTracker {
        let endpoint = ["base_url": "http://127.0.0.1:1", "public_token": "p", "project_id": "q", "app_identifier": "a"]
        return SoakTracker(driver: try StytchSoakDriver(endpoint: endpoint), users: 1)
    }

    private func report(_ state: String, _ transitions: [(String, String, String?)] = []) -> HostReport {
        HostReport(
            step: 0, states: ["u": state],
            transitions: transitions.map { ObservedTransition(user: "u", from: $0.0, to: $0.1, cause: $0.2, priorState: nil, simulatedTime: 0) },
            violations: [], counters: HostCounters())
    }

    private static let notFound = "session_not_found (HTTP 404)"

    @Test func aRevocationDuringALoginExplainsTheEndOfTheSessionItCreated() throws {
        var judge = try tracker()
        judge.absorb(report("establishing", [("notLoggedIn", "establishing", nil)]))
        judge.performing(.revokeSessions, on: "u")
        judge.absorb(report("established", [("establishing", "established", nil)]))
        judge.absorb(report("notLoggedIn", [("established", "notLoggedIn", Self.notFound)]))
        #expect(judge.takeUnexplained().isEmpty)
        #expect(judge.summary.legitimateEnds == 1)
    }

    @Test func aRevocationBeforeALoginStillExplainsNoLaterEnd() throws {
        var judge = try tracker()
        judge.absorb(report("established", [("establishing", "established", nil)]))
        judge.performing(.revokeSessions, on: "u")
        judge.absorb(report("notLoggedIn", [("established", "notLoggedIn", Self.notFound)]))
        judge.absorb(report("established", [("notLoggedIn", "establishing", nil), ("establishing", "established", nil)]))
        judge.absorb(report("notLoggedIn", [("established", "notLoggedIn", Self.notFound)]))
        let unexplained = judge.takeUnexplained()
        #expect(unexplained.count == 1)
        #expect(unexplained.first?.figure == .wrongfulLogout)
        #expect(judge.summary.legitimateEnds == 1)
    }

    @Test func onlyTheLoginUnderWayIsExcusedNotTheNextOne() throws {
        var judge = try tracker()
        judge.absorb(report("establishing", [("notLoggedIn", "establishing", nil)]))
        judge.performing(.revokeSessions, on: "u")
        judge.absorb(report("established", [("establishing", "established", nil)]))
        judge.absorb(report("notLoggedIn", [("established", "notLoggedIn", "logout")]))
        judge.absorb(report("established", [("notLoggedIn", "establishing", nil), ("establishing", "established", nil)]))
        judge.absorb(report("notLoggedIn", [("established", "notLoggedIn", Self.notFound)]))
        #expect(judge.takeUnexplained().count == 1)
    }

    /// Seed 18 (stytch-b2b, sweep of 594877a): in one step a revocation, the client's
    /// renewal refused with `session_not_found` (the session ends, the store is cleared),
    /// and an in-process restart whose new client found `notLoggedIn` at start. The end was
    /// judged once; the restarted client seeing it again lost nothing.
    @Test func aRestartedClientFindingAnEndedSessionEndedLosesNothing() throws {
        var judge = try tracker()
        judge.absorb(report("established", [("establishing", "established", nil)]))
        judge.absorb(report("tokenExpired", [("established", "tokenExpired", nil)]))
        judge.performing(.revokeSessions, on: "u")
        var step = report("notLoggedIn", [("tokenExpired", "notLoggedIn", Self.notFound)])
        step.transitions.append(
            ObservedTransition(user: "u", from: "start", to: "notLoggedIn", cause: Self.notFound, priorState: "tokenExpired", simulatedTime: 0))
        judge.absorb(step)
        #expect(judge.takeUnexplained().isEmpty)
        #expect(judge.summary.legitimateEnds == 1, "one end, judged once")
        // After a new login the revocation explains nothing: a restart finding no session is a loss.
        judge.absorb(report("established", [("notLoggedIn", "establishing", nil), ("establishing", "established", nil)]))
        var restart = report("notLoggedIn")
        restart.transitions = [
            ObservedTransition(user: "u", from: "start", to: "notLoggedIn", cause: nil, priorState: "established", simulatedTime: 0)
        ]
        judge.absorb(restart)
        #expect(judge.takeUnexplained().first?.figure == .lostAtRestart)
    }

    /// A client that refused a transition its diagram lacks logs it; the host reports the
    /// line (redacted) and the judge counts it as an invariant of its own.
    @Test func aRefusedTransitionIsAViolationOfItsOwn() throws {
        var judge = try tracker()
        let line = "u\t1800000000 error \(UserHost.offTheDiagram) from=notLoggedIn to=tokenExpired"
        #expect(line.contains(UserHost.offTheDiagram))
        var host = report("notLoggedIn")
        host.violations = [HostViolation(kind: .offTheDiagram, user: "u", detail: UserHost.redacted(line))]
        judge.absorb(host)
        #expect(judge.summary.invariants.transitionsOffTheDiagram == 1)
        #expect(judge.summary.invariants.total == 1)
    }
}
