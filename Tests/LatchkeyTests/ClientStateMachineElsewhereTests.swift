import Testing

@testable import Latchkey

/// `AuthClient.StateMachine` for what does not come from the session's own renewal: token
/// sets kept apart (another audience or scope), checks that merge the provider's report
/// into the record, another process signing out, and tokens the app brings from elsewhere.
@Suite struct ClientStateMachineElsewhereTests {
    typealias Machine = AuthClient.StateMachine<Int>
    static let mfa = ClientStateMachineTests.mfa
    static let stopSession = ClientStateMachineTests.stopSession
    static let signIn = ClientStateMachineTests.signIn

    static var established: Machine { ClientStateMachineTests.established }

    // MARK: Token sets kept apart

    @Test func aTokenSetKeptApartNeverBecomesTheSessionsRenewal() {
        var machine = Self.established
        #expect(machine.handle(.tokenSetWanted) == [.renewApart(1, from: 1)])
        #expect(machine.state.session?.renewal == nil && machine.state.session?.apart == [1])
        // The session's own renewal is still its own, and both may proceed.
        #expect(machine.handle(.renewalWanted) == [.renew(2, from: 1)])
        #expect(machine.renewalMayProceed(1) && machine.renewalMayProceed(2))
        #expect(machine.renewalMustWait(2), "a later renewal waits for the rotation the earlier one may bring back")
    }

    @Test func aTokenSetsRotatedRefreshTokenJoinsTheRecordWithoutMovingTheState() {
        var machine = Self.established
        _ = machine.handle(.tokenSetWanted)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: true))) == [])
        #expect(machine.state == .established(Machine.Session(2)) && machine.renewals.isEmpty)
        _ = machine.handle(.tokenSetWanted)
        #expect(machine.handle(.renewalAnswered(2, .renewed(3, base: 2, saved: false))) == [.arm(.saveRetry)])
        #expect(machine.state.session?.record == 3 && machine.state.session?.unsaved == Machine.Unsaved(base: 2))
    }

    @Test func aTokenSetsTransientFailureEndsNothingButTheProvidersVerdictDoes() {
        var machine = Self.established
        _ = machine.handle(.tokenSetWanted)
        #expect(machine.handle(.renewalAnswered(1, .failed(.transient))) == [])
        #expect(machine.published == .established && machine.state.session?.apart == [])
        _ = machine.handle(.tokenSetWanted)
        #expect(machine.handle(.renewalAnswered(2, .failed(.ended(.unrecoverable)))) == Self.stopSession + [.clear(1), .publish(.notLoggedIn)])
    }

    @Test func aTokenSetThatOutlivesItsSessionIsSavedOnlyWhereTheStoreStillHoldsItsBase() {
        var machine = Self.established
        _ = machine.handle(.tokenSetWanted)
        _ = machine.handle(.expiryFired)
        _ = machine.handle(.loginBegan)
        #expect(machine.state.session?.apart == [], "a login quiesces the set-aside session")
        _ = machine.handle(.loginAnswered(2, .saved(5)))
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false))) == [.saveIfStoreHolds(2, base: 1)])
        #expect(machine.state.session?.record == 5)
    }

    // MARK: Checks that merge

    @Test func aMergedCheckTakesTheRecordAndClearsWhatWasOwed() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        _ = machine.handle(.heartbeatFired)
        #expect(machine.handle(.checkAnswered(2, .merged(2))) == [.disarm(.saveRetry)])
        #expect(machine.state.session?.record == 2 && machine.state.session?.unsaved == nil)
    }

    @Test func aMergedRecordTheStoreRefusedIsKeptMarkedAndRetried() {
        var machine = ClientStateMachineTests.machine([.start, .storeRead(1)])
        #expect(machine.handle(.checkAnswered(0, .mergedUnsaved(7, base: 1))) == [.arm(.saveRetry)] + Self.signIn + [.publish(.established)])
        #expect(machine.state.session?.record == 7 && machine.state.session?.unsaved == Machine.Unsaved(base: 1))
    }

    // MARK: Another process

    @Test func aCheckOrRenewalFindingTheStoreEmptySignsOutWithNothingToClear() {
        var checked = ClientStateMachineTests.machine([.start, .storeRead(1)])
        #expect(checked.handle(.checkAnswered(0, .failed(.ended(.signedOutElsewhere)))) == Self.stopSession + [.publish(.notLoggedIn)])
        #expect(checked.state == .notLoggedIn(owed: nil))
        var renewing = Self.established
        _ = renewing.handle(.renewalWanted)
        #expect(renewing.handle(.renewalAnswered(1, .failed(.ended(.signedOutElsewhere)))) == Self.stopSession + [.publish(.notLoggedIn)])
        #expect(renewing.state == .notLoggedIn(owed: nil))
    }

    /// Found by the model check at depth 11: a rotated token the store refused, another
    /// process's logout, the store healed — the save retry wrote the session back.
    @Test func aFlushNeverWritesASessionBackOverAnotherProcesssLogout() {
        var machine = ClientStateMachineTests.owing
        #expect(machine.handle(.storeEmptiedElsewhere(2)) == [.disarm(.saveRetry)] + Self.stopSession + [.publish(.notLoggedIn)])
        #expect(machine.state == .notLoggedIn(owed: nil))
        #expect(machine.handle(.storeEmptiedElsewhere(2)) == [], "a late report finds nothing to end")
    }

    @Test func aLoginUnderWayDropsTheSessionItSetAsideWhenAnotherProcessSignedOut() {
        var machine = ClientStateMachineTests.setAsideOwing
        #expect(machine.handle(.storeEmptiedElsewhere(2)) == [.disarm(.saveRetry)])
        #expect(machine.published == .establishing && machine.state.session == nil)
        #expect(machine.handle(.loginAnswered(2, .failed(.transient))) == [.publish(.notLoggedIn)])
    }

    // MARK: Tokens from elsewhere, and a second renewal

    @Test func tokensFromTheAppReplaceAnEstablishedSessionWithoutLeavingIt() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.replaced(9)) == [.disarm(.saveRetry)] + Self.stopSession + Self.signIn)
        #expect(machine.state == .established(Machine.Session(9)) && machine.published == .established)
        // The old session's renewal outlives it: its rotated token goes only where its base still is.
        #expect(machine.handle(.renewalAnswered(2, .renewed(3, base: 2, saved: false))) == [.saveIfStoreHolds(3, base: 2)])
        var expired = Self.established
        _ = expired.handle(.expiryFired)
        // From tokenExpired `update(tokens:)` is a login (`loginBegan`); what replaces the
        // session there is `replaceSession`'s login, which establishes it again.
        #expect(expired.handle(.replaced(9)).last == .publish(.established))
    }

    /// A caller that wants more time than an adopted token has left renews again: the
    /// machine takes a second renewal right after an answer, with no new caller needed.
    @Test func aSecondRenewalMayFollowAnAnswerAtOnce() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: true)))
        #expect(machine.handle(.renewalWanted) == [.renew(2, from: 2)])
    }

    // MARK: Tokens another process renewed

    /// Fresh tokens another writer saved, taken by a check's merge or a flush, end
    /// `tokenExpired` as the session's own renewal does; a merge of the provider's report
    /// alone leaves it. They are what the vault holds: nothing is owed any more.
    @Test func tokensRenewedElsewhereEndTokenExpired() {
        let expired: [Machine.Event] = [.start, .storeRead(1), .checkAnswered(0, .valid), .expiryFired]
        var renewed = ClientStateMachineTests.machine(expired)
        #expect(renewed.handle(.renewedElsewhere(5)) == [.arm(.renewal), .arm(.expiry), .publish(.established)])
        #expect(renewed.state.session?.record == 5 && renewed.state.session?.expired == false)
        #expect(renewed.published == .established)
        var merged = ClientStateMachineTests.machine(expired + [.heartbeatFired])
        #expect(merged.handle(.checkAnswered(1, .merged(2))) == [])
        #expect(merged.published == .tokenExpired && merged.state.session?.record == 2)
        // Established and owing: the save retry stops, nothing is published.
        var owing = ClientStateMachineTests.owing
        #expect(owing.handle(.renewedElsewhere(5)) == [.disarm(.saveRetry)])
        #expect(owing.state.session?.unsaved == nil && owing.published == .established)
        // A session a login set aside takes them, and comes back established if the login fails.
        var setAside = ClientStateMachineTests.setAsideOwing
        #expect(setAside.handle(.renewedElsewhere(5)) == [.disarm(.saveRetry)])
        #expect(setAside.state.session?.record == 5)
        #expect(setAside.handle(.loginAnswered(2, .failed(.transient))).last == .publish(.established))
        // A kept session waiting for the user: fresh tokens end the wait, as a renewal would.
        var waiting = ClientStateMachineTests.established
        _ = waiting.handle(.renewalWanted)
        _ = waiting.handle(.renewalAnswered(1, .failed(.needsUserAction(ClientStateMachineTests.mfa))))
        #expect(waiting.handle(.renewedElsewhere(5)) == [.arm(.renewal), .arm(.expiry), .publish(.established)])
        #expect(waiting.state == .established(Machine.Session(5)))
        // A wait with no session kept (a login's step) is not the session's to end.
        let step: Machine.LoginAnswer = .failed(.needsUserAction(ClientStateMachineTests.mfa))
        var login = ClientStateMachineTests.machine([.start, .storeRead(nil), .loginBegan, .loginAnswered(0, step)])
        #expect(login.handle(.renewedElsewhere(5)) == [])
        #expect(login.published == .needsUserAction(ClientStateMachineTests.mfa))
        // Nobody signed in: nothing to take.
        var signedOut = ClientStateMachineTests.machine([.start, .storeRead(nil)])
        #expect(signedOut.handle(.renewedElsewhere(5)) == [])
    }

    /// An outlived renewal that rotated the store's tokens — newer than memory's copy,
    /// which another process's renewal had replaced — with the store refusing the save:
    /// the machine asks to save only if the store holds what they replaced, and the actor,
    /// which found it there, tells it the session keeps them.
    @Test func anOutlivedRenewalKeptWhereTheStoreHeldWhatItReplaced() {
        var machine = ClientStateMachineTests.established
        #expect(machine.handle(.renewalWanted) == [.renew(1, from: 1)])
        _ = machine.handle(.renewedElsewhere(5))
        _ = machine.handle(.shutdown)
        #expect(machine.handle(.renewalAnswered(1, .renewed(7, base: 6, saved: false))) == [.saveIfStoreHolds(7, base: 6)])
        #expect(machine.handle(.outlivedKept(7, base: 6)) == [.flush(7, base: 6)])
        #expect(machine.state.session?.record == 7 && machine.state.session?.unsaved != nil)
        // Memory already owing other tokens keeps those: the first base is what the store holds.
        #expect(machine.handle(.outlivedKept(8, base: 7)) == [])
        // Nobody signed in: nothing to keep.
        var signedOut = ClientStateMachineTests.machine([.start, .storeRead(nil)])
        #expect(signedOut.handle(.outlivedKept(7, base: 6)) == [])
    }
}
