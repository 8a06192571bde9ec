import Foundation
import Latchkey
import Testing

/// The session state machine: social.plus's flow, for every provider.
@Suite(.noSecretLeaks) struct StateMachineTests {
    static let action = UserAction(kind: "mfa")
    static let states: [SessionState] = [
        .restoring, .notLoggedIn, .establishing, .established, .tokenExpired, .needsUserAction(action),
        .terminated(.globalBan), .terminated(.userDeleted), .terminated(.unauthorized),
        .terminated(TerminationReason("adapterDefined")),
    ]

    /// The documented transitions (social.plus's flow plus `restoring`, `needsUserAction`,
    /// and the restore and re-login moves), written out independently of the implementation.
    static func documented(_ from: SessionState?, _ to: SessionState) -> Bool {
        let isTerminated = if case .terminated = to { true } else { false }
        let isAction = if case .needsUserAction = to { true } else { false }
        switch from {
        case nil: return [.notLoggedIn, .established, .tokenExpired, .restoring].contains(to) || isTerminated || isAction
        case .restoring?: return [.notLoggedIn, .established, .tokenExpired, .establishing].contains(to) || isTerminated || isAction
        case .notLoggedIn?: return to == .establishing
        case .establishing?: return [.established, .notLoggedIn, .tokenExpired].contains(to) || isAction
        case .established?: return [.tokenExpired, .notLoggedIn].contains(to) || isTerminated || isAction
        case .tokenExpired?: return [.established, .notLoggedIn, .establishing].contains(to) || isTerminated || isAction
        case .needsUserAction?: return [.establishing, .notLoggedIn, .established].contains(to) || isTerminated
        case .terminated?: return to == .notLoggedIn
        }
    }

    @Test(arguments: [nil] + states)
    func everyLegalTransitionHappensAndEveryIllegalOneIsRefused(from: SessionState?) {
        for to in Self.states {
            var machine = SessionStateMachine()
            if let from {
                // Walk to `from` along legal moves.
                let path: [SessionState] =
                    switch from {
                    case .restoring: [.restoring]
                    case .notLoggedIn: [.notLoggedIn]
                    case .establishing: [.notLoggedIn, .establishing]
                    case .established: [.established]
                    case .tokenExpired: [.established, .tokenExpired]
                    case .needsUserAction: [.established, from]
                    case .terminated: [.established, from]
                    }
                for step in path {
                    let moved = machine.transition(to: step)
                    #expect(moved, "setting up \(step)")
                }
            }
            let legal = Self.documented(from, to)
            #expect(SessionStateMachine.isLegal(from: from, to: to) == legal, "\(from.map { "\($0)" } ?? "start") → \(to)")
            let moved = machine.transition(to: to)
            #expect(moved == legal)
            #expect(machine.state == (legal ? to : from), "an illegal move leaves the state alone")
        }
    }

    @Test func aFullSessionOnlyMakesLegalMovesAndLogsNoRefusal() async throws {
        let harness = try Harness()
        try await harness.login()
        harness.provider.revokeAccessTokenAtServer()
        _ = try await harness.client.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))
        try await harness.client.logout(revoke: .required)
        #expect(!harness.logs.all.contains { $0.contains("illegal") })
        #expect(harness.logs.all.contains { $0.contains("session state changed") && $0.contains("to=established") })
    }
}
