import Latchkey
import Testing

/// The session state machine: social.plus's flow, for every provider.
@Suite struct StateMachineTests {
    static let states: [SessionState] = [.notLoggedIn, .establishing, .established, .tokenExpired,
                                         .terminated(.globalBan), .terminated(.userDeleted), .terminated(.unauthorized)]

    /// The documented transitions, written out independently of the implementation.
    static func documented(_ from: SessionState?, _ to: SessionState) -> Bool {
        switch from {
        case nil: return to == .notLoggedIn || to == .established
        case .notLoggedIn?: return to == .establishing
        case .establishing?: return to == .established || to == .notLoggedIn
        case .established?:
            if case .terminated = to { return true }
            return to == .tokenExpired || to == .notLoggedIn
        case .tokenExpired?:
            if case .terminated = to { return true }
            return to == .established || to == .notLoggedIn || to == .establishing
        case .terminated?: return to == .notLoggedIn
        }
    }

    @Test(arguments: [nil] + states)
    func everyLegalTransitionHappensAndEveryIllegalOneIsRefused(from: SessionState?) {
        for to in Self.states {
            var machine = SessionStateMachine()
            if let from {
                // Walk to `from` along legal moves.
                let path: [SessionState] = switch from {
                case .notLoggedIn: [.notLoggedIn]
                case .establishing: [.notLoggedIn, .establishing]
                case .established: [.established]
                case .tokenExpired: [.established, .tokenExpired]
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
        _ = try await harness.client.send(HTTPRequest(url: URL(string: "https://api.example.com/me")!))
        try await harness.client.logout(revoke: true)
        #expect(!harness.logs.all.contains { $0.contains("illegal") })
        #expect(harness.logs.all.contains { $0.contains("session state changed") && $0.contains("to=established") })
    }
}

import Foundation
