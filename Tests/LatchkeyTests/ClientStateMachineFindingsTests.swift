import Testing

@testable import Latchkey

/// Moves of the client the machine first lacked, each found by running the machine beside
/// the client (`AuthClient+Core`: every LatchkeyTests client and the soak compare what
/// the two publish), now transitions of their own.
@Suite struct ClientStateMachineFindingsTests {
    typealias Machine = AuthClient.StateMachine<Int>
    static let mfa = ClientStateMachineTests.mfa
    static let stopSession = ClientStateMachineTests.stopSession
    static let signIn = ClientStateMachineTests.signIn

    static func machine(_ events: [Machine.Event]) -> Machine { ClientStateMachineTests.machine(events) }
    static var established: Machine { ClientStateMachineTests.established }

    /// A ban answered to an app request ends the session at once; without a session in
    /// use there is nothing to end.
    @Test func aBanAnsweredToAnAppRequestEndsTheSession() {
        var machine = Self.established
        #expect(machine.handle(.appRequestEnded(.terminated(.globalBan))) == Self.stopSession + [.clear(1), .publish(.terminated(.globalBan))])
        #expect(machine.state == .terminated(.globalBan, owed: 1))
        var signedOut = Self.machine([.start, .storeRead(nil)])
        #expect(signedOut.handle(.appRequestEnded(.unrecoverable)) == [])
        #expect(signedOut.state == .notLoggedIn(owed: nil))
    }

    /// A session extension asked while a plain renewal is in flight is not swallowed by
    /// it: a second renewal starts beside it, and either answer is the session's own.
    @Test func aRenewalTheOneInFlightDoesNotGiveStartsBesideIt() {
        var machine = Self.established
        #expect(machine.handle(.renewalWanted) == [.renew(1, from: 1)])
        #expect(machine.handle(.renewalWanted) == [.join(1)])
        #expect(machine.handle(.renewalBesideWanted) == [.renew(2, from: 1)])
        #expect(machine.renewalMayProceed(1) && machine.renewalMayProceed(2))
        #expect(machine.handle(.renewalAnswered(2, .renewed(3, base: 1, saved: true))) == Self.signIn.dropFirst() + [.publish(.established)])
        #expect(machine.state.session?.record == 3)
        #expect(machine.handle(.renewalAnswered(1, .failed(.ended(.unrecoverable)))).contains(.publish(.notLoggedIn)))
        // With none in flight it is the session's renewal, which callers join.
        var alone = Self.established
        #expect(alone.handle(.renewalBesideWanted) == [.renew(1, from: 1)])
        #expect(alone.handle(.renewalWanted) == [.join(1)])
    }

    /// Tokens confirmed elsewhere, or a replacing login, establish the session again from
    /// `tokenExpired` and from a step a renewal needed the user for.
    @Test func aReplacementEstablishesTheSessionFromAnySignedInState() {
        var expired = Self.machine([.start, .storeRead(1), .checkAnswered(0, .valid), .expiryFired])
        #expect(expired.handle(.replaced(2)) == Self.stopSession + Self.signIn + [.publish(.established)])
        #expect(expired.state == .established(.init(2)))
        var waiting = Self.machine([
            .start, .storeRead(1), .checkAnswered(0, .valid), .renewalWanted, .renewalAnswered(1, .failed(.needsUserAction(Self.mfa))),
        ])
        #expect(waiting.handle(.replaced(2)).last == .publish(.established))
        var stepless = Self.machine([.start, .storeRead(nil)])
        #expect(stepless.handle(.replaced(2)) == [.refused])
    }

    /// A replacing login that needs another step keeps the session for the user's answer.
    @Test func aReplacingLoginsStepKeepsTheSession() {
        var machine = Self.established
        #expect(machine.handle(.replacementNeedsUser(Self.mfa)) == Self.stopSession + [.publish(.needsUserAction(Self.mfa))])
        #expect(machine.state.session?.record == 1)
        #expect(machine.handle(.replacementNeedsUser(Self.mfa)) == Self.stopSession + [.publish(.needsUserAction(Self.mfa))])
    }
}
