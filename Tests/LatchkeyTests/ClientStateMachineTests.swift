import Testing

@testable import Latchkey

/// `AuthClient.StateMachine` on its own: every transition, every late answer it drops and
/// every event it refuses, with no actor, clock or store around it. Records are numbers.
@Suite struct ClientStateMachineTests {
    typealias Machine = AuthClient.StateMachine<Int>
    static let mfa = UserAction(kind: "mfa")
    static let stopSession: [Machine.Action] = [.disarm(.heartbeat), .disarm(.renewal), .disarm(.expiry), .disarm(.action)]
    static let signIn: [Machine.Action] = [.arm(.heartbeat), .arm(.renewal), .arm(.expiry)]

    /// A machine driven through `events` from the start, each accepted.
    static func machine(_ events: [Machine.Event]) -> Machine {
        var machine = Machine()
        for event in events {
            let actions = machine.handle(event)
            #expect(!actions.contains(.refused), "setting up: \(event)")
        }
        return machine
    }

    /// Signed in with record 1 (restored and validated), the first check being id 0.
    static var established: Machine { machine([.start, .storeRead(1), .checkAnswered(0, .valid)]) }

    /// Established with record 2, which renewal 1 brought back and the store refused (it
    /// still holds 1): a save is owed.
    static var owing: Machine {
        machine([.start, .storeRead(1), .checkAnswered(0, .valid), .renewalWanted, .renewalAnswered(1, .renewed(2, base: 1, saved: false))])
    }

    /// ``owing``, its token expired and a login (id 2) begun: the session is set aside, still owed.
    static var setAsideOwing: Machine {
        machine([
            .start, .storeRead(1), .checkAnswered(0, .valid), .renewalWanted, .renewalAnswered(1, .renewed(2, base: 1, saved: false)), .expiryFired,
            .loginBegan,
        ])
    }

    // MARK: Start

    @Test func startReadsTheStoreAndPublishesNothingYet() {
        var machine = Machine()
        #expect(machine.handle(.start) == [.readStore])
        #expect(machine.state == .loading && machine.published == nil)
    }

    @Test func anEmptyStoreIsNotLoggedIn() {
        var machine = Self.machine([.start])
        #expect(machine.handle(.storeRead(nil)) == [.publish(.notLoggedIn)])
        #expect(machine.state == .notLoggedIn(owed: nil))
    }

    @Test func aStoredSessionIsCheckedBeforeItIsPublished() {
        var machine = Self.machine([.start])
        #expect(machine.handle(.storeRead(1)) == [.validate(0, 1)])
        #expect(machine.published == nil)
        #expect(machine.handle(.checkAnswered(0, .valid)) == Self.signIn + [.publish(.established)])
        #expect(machine.state.session?.record == 1 && machine.state.session?.revalidationPending == false)
    }

    @Test func anUnreachableProviderAtStartKeepsTheSessionPendingRevalidation() {
        var machine = Self.machine([.start, .storeRead(1)])
        #expect(machine.handle(.checkAnswered(0, .failed(.transient))) == Self.signIn + [.publish(.established)])
        #expect(machine.state.session?.revalidationPending == true)
        _ = machine.handle(.heartbeatFired)
        #expect(machine.handle(.checkAnswered(1, .valid)) == [])
        #expect(machine.state.session?.revalidationPending == false)
    }

    @Test(arguments: [
        (Machine.Ending.unrecoverable, SessionState.notLoggedIn),
        (.terminated(.globalBan), .terminated(.globalBan)),
    ])
    func aVerdictAtStartEndsTheStoredSessionAndClearsIt(ending: Machine.Ending, ends: SessionState) {
        var machine = Self.machine([.start, .storeRead(1)])
        #expect(machine.handle(.checkAnswered(0, .failed(.ended(ending)))) == Self.stopSession + [.clear(1), .publish(ends)])
        #expect(machine.published == ends && machine.state.owed == 1)
    }

    @Test func aStepTheUserMustTakeAtStartKeepsTheSession() {
        var machine = Self.machine([.start, .storeRead(1)])
        #expect(machine.handle(.checkAnswered(0, .failed(.needsUserAction(Self.mfa)))) == Self.stopSession + [.publish(.needsUserAction(Self.mfa))])
        #expect(machine.state.session?.record == 1)
    }

    @Test func anUnreadableStoreIsRestoringAndRetried() {
        var machine = Self.machine([.start])
        #expect(machine.handle(.storeReadFailed) == [.publish(.restoring), .arm(.restoreRetry)])
        #expect(machine.handle(.restoreRetryFired) == [.readStore])
        #expect(machine.handle(.storeRead(1)) == [.validate(0, 1)])
    }

    @Test func aLoginWhileRestoringStopsTheRetries() {
        var machine = Self.machine([.start, .storeReadFailed])
        #expect(machine.handle(.loginBegan) == [.disarm(.restoreRetry)] + Self.stopSession + [.publish(.establishing), .login(0)])
    }

    /// The retry's read still shows `restoring`; a login or a logout may begin meanwhile,
    /// and the read's answer then applies to nothing (the actor drops it).
    @Test func aLoginOrLogoutWhileTheRetryReadsTheStoreOvertakesIt() {
        var machine = Self.machine([.start, .storeReadFailed, .restoreRetryFired])
        #expect(machine.state == .rereading && machine.published == .restoring)
        #expect(machine.handle(.loginBegan) == Self.stopSession + [.publish(.establishing), .login(0)])
        #expect(machine.handle(.storeRead(nil)) == [.refused])
        var loggingOut = Self.machine([.start, .storeReadFailed, .restoreRetryFired])
        #expect(loggingOut.handle(.logout) == Self.stopSession + [.clear(nil), .publish(.notLoggedIn)])
        #expect(loggingOut.handle(.storeRead(1)) == [.refused])
        #expect(loggingOut.state == .notLoggedIn(owed: nil))
        var failingAgain = Self.machine([.start, .storeReadFailed, .restoreRetryFired])
        #expect(failingAgain.handle(.storeReadFailed) == [.publish(.restoring), .arm(.restoreRetry)])
        #expect(failingAgain.state == .restoring)
    }

    // MARK: Renewal

    @Test func callersShareOneRenewal() {
        var machine = Self.established
        #expect(machine.handle(.renewalWanted) == [.renew(1, from: 1)])
        #expect(machine.handle(.renewalWanted) == [.join(1)])
        #expect(machine.renewalMayProceed(1) && !machine.renewalMustWait(1))
    }

    @Test func aSavedRenewalReplacesTheRecord() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: true))) == [.arm(.renewal), .arm(.expiry), .publish(.established)])
        #expect(machine.state.session?.record == 2 && machine.state.session?.unsaved == nil && machine.renewals.isEmpty)
    }

    @Test func anUnsavedRenewalIsKeptMarkedAndSavedOnTheNextCall() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        #expect(machine.state.session?.unsaved == Machine.Unsaved(base: 1))
        // The next renewal's base stays what the vault really holds.
        #expect(machine.handle(.renewalWanted) == [.flush(2, base: 1), .renew(2, from: 2)])
        #expect(machine.handle(.saveAnswered(2, saved: false)) == [])
        #expect(machine.state.session?.unsaved == Machine.Unsaved(base: 1))
        _ = machine.handle(.renewalAnswered(2, .renewed(3, base: 1, saved: false)))
        #expect(machine.state.session?.unsaved == Machine.Unsaved(base: 1))
        #expect(machine.handle(.heartbeatFired) == [.flush(3, base: 1), .validate(3, 3)])
        #expect(machine.handle(.saveAnswered(3, saved: true)) == [.disarm(.saveRetry)])
        #expect(machine.state.session?.unsaved == nil)
    }

    @Test func aRefusedSaveIsRetriedOnItsOwnTimerUntilItLands() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        // Each refused save (re)arms the retry, which restarts its back-off.
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false))).first == .arm(.saveRetry))
        #expect(machine.handle(.saveRetryFired) == [.flush(2, base: 1)])
        #expect(machine.handle(.saveAnswered(2, saved: false)) == [], "the timer stays armed")
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(2, .renewed(3, base: 1, saved: false))).first == .arm(.saveRetry))
        #expect(machine.handle(.saveRetryFired) == [.flush(3, base: 1)])
        #expect(machine.handle(.saveAnswered(3, saved: true)) == [.disarm(.saveRetry)])
        #expect(machine.state.session?.unsaved == nil)
        #expect(machine.handle(.saveRetryFired) == [.disarm(.saveRetry)], "nothing owed: the timer stops")
    }

    @Test func aSavedRenewalEndsTheSaveRetryOfAnEarlierRefusal() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(2, .renewed(3, base: 1, saved: true))).first == .disarm(.saveRetry))
    }

    @Test func aSessionSetAsideByALoginStillOwesItsUnsavedTokens() {
        var machine = Self.setAsideOwing
        #expect(machine.published == .establishing)
        #expect(machine.handle(.saveRetryFired) == [.flush(2, base: 1)])
    }

    @Test func aSaveOfAnOlderRecordDoesNotClearTheMark() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        #expect(machine.handle(.saveAnswered(1, saved: true)) == [])
        #expect(machine.state.session?.unsaved != nil)
    }

    @Test func aTransientRenewalFailureKeepsTheSessionAndRetriesLater() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(1, .failed(.transient))) == [.arm(.renewal)])
        #expect(machine.state.session?.record == 1 && machine.published == .established)
    }

    @Test func aRefusedRenewalEndsTheSession() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(1, .failed(.ended(.unrecoverable)))) == Self.stopSession + [.clear(1), .publish(.notLoggedIn)])
    }

    @Test func aRenewalThatNeedsTheUserKeepsTheSession() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(1, .failed(.needsUserAction(Self.mfa)))) == Self.stopSession + [.publish(.needsUserAction(Self.mfa))])
        #expect(machine.state == .needsUserAction(Self.mfa, kept: Machine.Session(1)))
        // An explicit renewal of the kept session: established again at once.
        #expect(machine.handle(.renewalWanted) == [.publish(.established), .renew(2, from: 1)])
    }

    @Test func anExpiredKeptSessionWaitsForItsRenewalBeforeLeavingTheUsersStep() {
        var machine = Self.established
        _ = machine.handle(.expiryFired)
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.checkAnswered(1, .failed(.needsUserAction(Self.mfa))))
        #expect(machine.handle(.renewalWanted) == [.renew(2, from: 1)])
        #expect(machine.published == .needsUserAction(Self.mfa))
        #expect(machine.handle(.renewalAnswered(2, .renewed(2, base: 1, saved: true))) == [.arm(.renewal), .arm(.expiry), .publish(.established)])
    }

    // MARK: Expiry and checks

    @Test func theExpiryTimerMovesToTokenExpiredAndARenewalBack() {
        var machine = Self.established
        #expect(machine.handle(.expiryFired) == [.publish(.tokenExpired)])
        #expect(machine.handle(.expiryFired) == [])
        _ = machine.handle(.renewalWanted)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: true))) == [.arm(.renewal), .arm(.expiry), .publish(.established)])
    }

    @Test func oneCheckAtATime() {
        var machine = Self.established
        #expect(machine.handle(.heartbeatFired) == [.validate(1, 1)])
        #expect(machine.handle(.heartbeatFired) == [])
    }

    @Test(arguments: [
        (Machine.Ending.unrecoverable, SessionState.notLoggedIn),
        (.terminated(.userDeleted), .terminated(.userDeleted)),
    ])
    func aHeartbeatVerdictEndsTheSession(ending: Machine.Ending, ends: SessionState) {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        #expect(machine.handle(.checkAnswered(1, .failed(.ended(ending)))) == Self.stopSession + [.clear(1), .publish(ends)])
    }

    @Test func aTransientHeartbeatFailureKeepsEverything() {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        #expect(machine.handle(.checkAnswered(1, .failed(.transient))) == [])
        #expect(machine.published == .established && machine.state.session?.check == nil)
    }

    // MARK: Login and logout

    @Test func aLoginEstablishesASavedSession() {
        var machine = Self.machine([.start, .storeRead(nil)])
        #expect(machine.handle(.loginBegan) == Self.stopSession + [.publish(.establishing), .login(0)])
        #expect(machine.handle(.loginAnswered(0, .saved(5))) == Self.signIn + [.publish(.established)])
        #expect(machine.state.session == Machine.Session(5))
    }

    @Test func aFailedLoginFromNotLoggedInGoesBack() {
        var machine = Self.machine([.start, .storeRead(nil), .loginBegan])
        #expect(machine.handle(.loginAnswered(0, .failed(.transient))) == [.publish(.notLoggedIn)])
    }

    @Test func aFailedReLoginKeepsTheExpiredSession() {
        var machine = Self.established
        _ = machine.handle(.expiryFired)
        #expect(machine.handle(.loginBegan) == Self.stopSession + [.publish(.establishing), .login(1)])
        #expect(machine.handle(.loginAnswered(1, .failed(.ended(.unrecoverable)))) == Self.signIn + [.publish(.tokenExpired)])
        #expect(machine.state.session?.record == 1)
    }

    @Test func aTerminationAnsweredToAReLoginClearsTheKeptSession() {
        var machine = Self.established
        _ = machine.handle(.expiryFired)
        _ = machine.handle(.loginBegan)
        #expect(machine.handle(.loginAnswered(1, .failed(.ended(.terminated(.globalBan))))) == [.clear(1), .publish(.notLoggedIn)])
    }

    @Test func aWrongCodeKeepsThePendingStep() {
        var machine = Self.machine([.start, .storeRead(nil), .loginBegan, .loginAnswered(0, .failed(.needsUserAction(Self.mfa)))])
        #expect(machine.published == .needsUserAction(Self.mfa))
        #expect(machine.handle(.loginBegan) == Self.stopSession + [.publish(.establishing), .login(1)])
        #expect(machine.handle(.loginAnswered(1, .failed(.transient))) == Self.stopSession + [.publish(.needsUserAction(Self.mfa))])
    }

    @Test func aPendingLoginStepExpires() {
        var machine = Self.machine([.start, .storeRead(nil), .loginBegan, .loginAnswered(0, .failed(.needsUserAction(Self.mfa)))])
        #expect(machine.handle(.actionExpired) == [.publish(.notLoggedIn)])
    }

    @Test func aKeptSessionOutlivesItsLoginStepsExpiry() {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.checkAnswered(1, .failed(.needsUserAction(Self.mfa))))
        #expect(machine.handle(.actionExpired) == [])
        #expect(machine.published == .needsUserAction(Self.mfa))
    }

    @Test func logoutClearsAndPublishes() {
        var machine = Self.established
        #expect(machine.handle(.logout) == Self.stopSession + [.clear(1), .publish(.notLoggedIn)])
        #expect(machine.state == .notLoggedIn(owed: 1))
        #expect(machine.handle(.clearAnswered(removed: true)) == [.disarm(.removalRetry)])
        #expect(machine.state == .notLoggedIn(owed: nil))
    }

    @Test func aRefusedRemovalIsRetriedUntilALoginSavesOverIt() {
        var machine = Self.established
        _ = machine.handle(.logout)
        #expect(machine.handle(.clearAnswered(removed: false)) == [.arm(.removalRetry)])
        #expect(machine.state.owed == 1)
        _ = machine.handle(.loginBegan)
        #expect(machine.handle(.loginAnswered(1, .saved(7))) == [.disarm(.removalRetry)] + Self.signIn + [.publish(.established)])
        #expect(machine.handle(.clearAnswered(removed: false)) == [])
    }

    @Test func logoutDuringALoginCancelsIt() {
        var machine = Self.machine([.start, .storeRead(nil), .loginBegan])
        #expect(machine.handle(.logout) == [.cancelLogin] + Self.stopSession + [.clear(nil), .publish(.notLoggedIn)])
    }

    @Test func onlyALogoutLeavesTerminated() {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.checkAnswered(1, .failed(.ended(.terminated(.globalBan)))))
        #expect(machine.handle(.loginBegan) == [.refused])
        #expect(machine.handle(.logout) == Self.stopSession + [.clear(1), .publish(.notLoggedIn)])
    }

    // MARK: Shutdown

    @Test func shutdownWaitsForRenewalsSavesUnsavedTokensAndFinishes() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false)))
        _ = machine.handle(.renewalWanted)
        #expect(
            machine.handle(.shutdown) == Self.stopSession + [
                .disarm(.restoreRetry), .disarm(.removalRetry), .disarm(.saveRetry), .await(2), .flush(2, base: 1), .finishStreams,
            ])
        #expect(machine.published == nil)
        #expect(machine.handle(.shutdown) == [])
        #expect(!machine.renewalMayProceed(2), "a shut-down client renews nothing")
    }

    @Test func shutdownRemovesAnEndedSessionStillOwed() {
        var machine = Self.established
        _ = machine.handle(.logout)
        _ = machine.handle(.clearAnswered(removed: false))
        #expect(machine.handle(.shutdown).suffix(2) == [.removeIfStored(1), .finishStreams])
    }

    // MARK: Late answers

    @Test func aRenewalSavedAfterALogoutIsDropped() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.logout)
        #expect(!machine.renewalMayProceed(1))
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: true))) == [])
        #expect(machine.state == .notLoggedIn(owed: 1) && machine.renewals.isEmpty)
    }

    @Test func anUnsavedRotationOutlivingItsSessionIsSavedOnlyOverWhatItReplaced() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.logout)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false))) == [.saveIfStoreHolds(2, base: 1)])
    }

    @Test func anUnsavedRotationOutlivingARenewalStepBecomesTheKeptRecord() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.checkAnswered(2, .failed(.needsUserAction(Self.mfa))))
        #expect(machine.renewalMustWait(3) == true)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false))) == [.arm(.saveRetry)])
        #expect(machine.state.session?.record == 2 && machine.state.session?.unsaved == Machine.Unsaved(base: 1))
    }

    @Test func anUnsavedRotationAnsweredAfterShutdownIsSaved() {
        var machine = Self.established
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.shutdown)
        #expect(machine.handle(.renewalAnswered(1, .renewed(2, base: 1, saved: false))) == [.flush(2, base: 1)])
        #expect(machine.handle(.saveAnswered(2, saved: true)) == [.disarm(.saveRetry)])
        #expect(machine.state == .shutDown(kept: Machine.Session(2), owed: nil))
    }

    @Test(arguments: [
        Machine.RenewalAnswer.failed(.transient), .failed(.ended(.unrecoverable)), .failed(.needsUserAction(ClientStateMachineTests.mfa)), .cancelled,
    ])
    func aFailedRenewalAfterALoginIsDropped(answer: Machine.RenewalAnswer) {
        var machine = Self.established
        _ = machine.handle(.expiryFired)
        _ = machine.handle(.renewalWanted)
        _ = machine.handle(.loginBegan)
        _ = machine.handle(.loginAnswered(2, .saved(9)))
        let before = machine.state
        #expect(machine.handle(.renewalAnswered(1, answer)) == [])
        #expect(machine.state == before)
    }

    @Test func aCheckAnsweredAfterALogoutIsDropped() {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.logout)
        #expect(machine.handle(.checkAnswered(1, .failed(.ended(.terminated(.globalBan))))) == [])
        #expect(machine.published == .notLoggedIn)
    }

    @Test func aCheckOfAReplacedSessionIsDropped() {
        var machine = Self.established
        _ = machine.handle(.heartbeatFired)
        _ = machine.handle(.expiryFired)
        _ = machine.handle(.loginBegan)
        _ = machine.handle(.loginAnswered(2, .saved(9)))
        #expect(machine.handle(.checkAnswered(1, .failed(.ended(.unrecoverable)))) == [])
        #expect(machine.state.session?.record == 9)
    }

    @Test func aLoginSavedAfterALogoutIsRemoved() {
        var machine = Self.machine([.start, .storeRead(nil), .loginBegan, .logout])
        #expect(machine.handle(.loginAnswered(0, .saved(5))) == [.removeIfStored(5)])
        #expect(machine.handle(.loginAnswered(0, .failed(.transient))) == [])
        #expect(machine.state == .notLoggedIn(owed: nil))
    }

    @Test func anAnswerToARenewalNeverAskedIsRefused() {
        var machine = Self.established
        #expect(machine.handle(.renewalAnswered(42, .renewed(2, base: 1, saved: true))) == [.refused])
        #expect(machine.state.session?.record == 1)
    }

    // MARK: Illegal events

    static let illegal: [(String, [Machine.Event], Machine.Event)] = [
        ("idle", [], .loginBegan), ("idle", [], .renewalWanted), ("idle", [], .heartbeatFired), ("idle", [], .logout),
        ("loading", [.start], .start), ("loading", [.start], .loginBegan), ("loading", [.start], .renewalWanted),
        ("restoring", [.start, .storeReadFailed], .renewalWanted), ("restoring", [.start, .storeReadFailed], .storeRead(1)),
        ("validating", [.start, .storeRead(1)], .loginBegan), ("validating", [.start, .storeRead(1)], .start),
        ("notLoggedIn", [.start, .storeRead(nil)], .renewalWanted), ("notLoggedIn", [.start, .storeRead(nil)], .heartbeatFired),
        ("notLoggedIn", [.start, .storeRead(nil)], .expiryFired), ("notLoggedIn", [.start, .storeRead(nil)], .storeRead(1)),
        ("establishing", [.start, .storeRead(nil), .loginBegan], .loginBegan),
        ("establishing", [.start, .storeRead(nil), .loginBegan], .renewalWanted),
        ("established", [.start, .storeRead(1), .checkAnswered(0, .valid)], .loginBegan),
        ("established", [.start, .storeRead(1), .checkAnswered(0, .valid)], .start),
        ("established", [.start, .storeRead(1), .checkAnswered(0, .valid)], .restoreRetryFired),
        (
            "needsUserAction", [.start, .storeRead(nil), .loginBegan, .loginAnswered(0, .failed(.needsUserAction(ClientStateMachineTests.mfa)))],
            .renewalWanted
        ),
        (
            "needsUserAction", [.start, .storeRead(nil), .loginBegan, .loginAnswered(0, .failed(.needsUserAction(ClientStateMachineTests.mfa)))],
            .heartbeatFired
        ),
        ("terminated", [.start, .storeRead(1), .checkAnswered(0, .failed(.ended(.terminated(.globalBan))))], .loginBegan),
        ("terminated", [.start, .storeRead(1), .checkAnswered(0, .failed(.ended(.terminated(.globalBan))))], .renewalWanted),
        ("shutDown", [.start, .shutdown], .loginBegan), ("shutDown", [.start, .shutdown], .logout),
        ("shutDown", [.start, .shutdown], .renewalWanted), ("shutDown", [.start, .shutdown], .start),
    ]

    @Test(arguments: illegal)
    func anIllegalEventIsRefusedAndChangesNothing(state: String, path: [Machine.Event], event: Machine.Event) {
        var machine = Self.machine(path)
        let before = machine
        #expect(machine.handle(event) == [.refused], "\(event) in \(state)")
        #expect(machine == before, "\(event) in \(state)")
    }

    @Test func theTransitionFunctionIsPure() {
        let machine = Self.established
        let first = Machine.transition(machine, .renewalWanted)
        let second = Machine.transition(machine, .renewalWanted)
        #expect(first.0 == second.0 && first.1 == second.1)
        #expect(machine == Self.established, "the input is left as it was")
    }
}
