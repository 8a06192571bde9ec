// The answers of `AuthClient.StateMachine`'s calls (checks, renewals, saves, clears),
// which carry the identifier of the call they answer and may arrive in any state.

extension AuthClient.StateMachine {
    // MARK: Answers, whatever the state

    /// Answers carry the identifier of the call they answer, so the state itself says
    /// whether one still applies: `nil` when `event` is for the state's own handler.
    mutating func answered(_ event: Event) -> [Action]? {
        switch event {
        case .checkAnswered(let id, _):
            // A check that outlived its session (a logout, a login, a step the user must take) says nothing now.
            return state.session?.check == id ? nil : []
        case .loginAnswered(let id, let answer):
            if case .establishing(let establishing) = state, establishing.login == id { return nil }
            // A login a logout overtook after it saved: its session must not outlive the logout.
            if case .saved(let record) = answer { return [.removeIfStored(record)] }
            return []
        case .renewalAnswered(let id, let answer):
            guard let from = renewals.removeValue(forKey: id) else { return [.refused] }
            if let session = state.session, session.renewal == id || session.beside.contains(id) { return nil }
            if var session = state.session, session.apart.remove(id) != nil { return apartAnswered(session, answer) }
            return outlived(answer, from: from)
        case .saveAnswered(let record, let saved):
            guard saved, var session = state.session, session.record == record, session.unsaved != nil else { return [] }
            session.unsaved = nil
            state.replaceSession(with: session)
            return [.disarm(.saveRetry)]
        case .renewedElsewhere(let record):
            // Whatever the state: a session a login set aside takes them too.
            guard var session = state.session else { return [] }
            let saveRetry = took(record, base: nil, saved: true, into: &session)
            session.expired = false
            // Fresh tokens end `tokenExpired`, and a kept session's wait for the user, as
            // a renewal here would; anywhere else the session only takes them.
            switch state {
            case .tokenExpired, .needsUserAction(_, kept: _?): return saveRetry + reestablish(session)
            default:
                state.replaceSession(with: session)
                return saveRetry
            }
        case .outlivedKept(let renewed, let base):
            guard let session = state.session, session.unsaved == nil else { return [] }
            return keep(renewed, base: base, into: session)
        case .storeEmptiedElsewhere(let record):
            guard let session = state.session, session.record == record, session.unsaved != nil else { return [] }
            return emptiedElsewhere(record)
        case .saveRetryFired:
            // Whatever the state: a session set aside by a login still owes its tokens.
            guard let session = state.session, let unsaved = session.unsaved else { return [.disarm(.saveRetry)] }
            return [.flush(session.record, base: unsaved.base)]
        case .appRequestEnded(let ending):
            // Only a session whose tokens are in use sends app requests; a shut-down client
            // publishes nothing more.
            switch state {
            case .validating(let session), .established(let session), .tokenExpired(let session),
                .needsUserAction(_, let session?):
                return end(session.record, ending)
            default:
                return []
            }
        case .clearAnswered(let removed):
            guard state.owed != nil else { return [] }
            if removed {
                state.replaceOwed(with: nil)
                return [.disarm(.removalRetry)]
            }
            return [.arm(.removalRetry)]
        default:
            return nil
        }
    }

    /// Another process signed out while memory owed the store `record`: the session ends
    /// as that process ended it (nothing to clear), and the rotated token is given up
    /// rather than written back over the logout.
    private mutating func emptiedElsewhere(_ record: Record) -> [Action] {
        switch state {
        case .validating, .established, .tokenExpired, .needsUserAction:
            return [.disarm(.saveRetry)] + end(record, .signedOutElsewhere)
        case .establishing(let establishing):
            // The login goes on; the session it set aside is nobody's now.
            state = .establishing(.init(login: establishing.login, kept: nil, from: establishing.from, owed: establishing.owed))
            return [.disarm(.saveRetry)]
        case .shutDown(_, let owed):
            state = .shutDown(kept: nil, owed: owed)
            return []
        case .idle, .loading, .restoring, .rereading, .notLoggedIn, .terminated:
            return []
        }
    }

    /// A renewal that finished after its session's renewal was no longer the one in flight.
    /// A rotated refresh token the vault refused is never dropped: while memory holds the
    /// session it renewed, it becomes that session's record, marked unsaved; otherwise it
    /// is saved only where the vault still holds what it replaced. (While a login has set
    /// the session aside, the actor also tries the vault at once; the machine keeps the
    /// tokens owed, the conservative form. Either way a failed login brings them back.)
    private mutating func outlived(_ answer: RenewalAnswer, from: Record) -> [Action] {
        guard case .renewed(let renewed, let base, saved: false) = answer else { return [] }
        guard let session = state.session, session.record == from || session.record == base else {
            return [.saveIfStoreHolds(renewed, base: base)]
        }
        return keep(renewed, base: base, into: session)
    }

    /// Rotated tokens the store refused after their renewal outlived its state: the session
    /// takes them, owed to the store (a shut-down client saves them before it returns).
    private mutating func keep(_ renewed: Record, base: Record?, into session: Session) -> [Action] {
        var session = session
        session.record = renewed
        session.expired = false
        if session.unsaved == nil { session.unsaved = Unsaved(base: base) }
        state.replaceSession(with: session)
        if case .shutDown = state { return [.flush(renewed, base: session.unsaved?.base)] }
        return [.arm(.saveRetry)]
    }

    /// A token set kept apart answered while its session is still signed in: the record
    /// takes its rotated refresh token; the session's own token, state and timers stay.
    private mutating func apartAnswered(_ session: Session, _ answer: RenewalAnswer) -> [Action] {
        var session = session
        switch answer {
        case .renewed(let record, let base, let saved):
            let saveRetry = took(record, base: base, saved: saved, into: &session)
            state.replaceSession(with: session)
            return saveRetry
        case .failed(.ended(let ending)):
            return end(session.record, ending)
        case .failed(.needsUserAction(let action)):
            return needUser(action, kept: session)
        case .failed(.transient), .cancelled:
            state.replaceSession(with: session)
            return []
        }
    }

    /// `session` takes `record` from a renewal: saved, or marked unsaved (what the vault
    /// held then: `base`). The save retry's timer moves accordingly.
    func took(_ record: Record, base: Record?, saved: Bool, into session: inout Session) -> [Action] {
        let saveRetry: [Action]
        if saved {
            saveRetry = session.unsaved == nil ? [] : [.disarm(.saveRetry)]
            session.unsaved = nil
        } else {
            // Each refused save starts the retry's back-off again, from its short wait.
            saveRetry = [.arm(.saveRetry)]
            if session.unsaved == nil { session.unsaved = Unsaved(base: base) }
        }
        session.record = record
        return saveRetry
    }

    /// A check's answer that confirmed the session, merged into it: the actions for the
    /// save retry's timer. A merged record the vault took replaces memory's, saved.
    func confirmed(_ answer: CheckAnswer, into session: inout Session) -> [Action] {
        switch answer {
        case .merged(let record): took(record, base: nil, saved: true, into: &session)
        case .mergedUnsaved(let record, let base): took(record, base: base, saved: false, into: &session)
        case .valid, .failed: []
        }
    }
}

extension AuthClient.StateMachine.State {
    /// The ended session's tokens the store may still hold.
    var owed: Record? {
        switch self {
        case .notLoggedIn(let owed), .terminated(_, let owed), .shutDown(_, let owed): owed
        case .establishing(let establishing): establishing.owed
        default: nil
        }
    }

    mutating func replaceOwed(with owed: Record?) {
        switch self {
        case .notLoggedIn: self = .notLoggedIn(owed: owed)
        case .terminated(let reason, _): self = .terminated(reason, owed: owed)
        case .shutDown(let kept, _): self = .shutDown(kept: kept, owed: owed)
        case .establishing(let establishing):
            self = .establishing(.init(login: establishing.login, kept: establishing.kept, from: establishing.from, owed: owed))
        default: break
        }
    }

    /// Puts `session` back in whichever case holds the session.
    mutating func replaceSession(with session: AuthClient.StateMachine<Record>.Session) {
        switch self {
        case .validating: self = .validating(session)
        case .established: self = .established(session)
        case .tokenExpired: self = .tokenExpired(session)
        case .needsUserAction(let action, _): self = .needsUserAction(action, kept: session)
        case .shutDown(_, let owed): self = .shutDown(kept: session, owed: owed)
        case .establishing(let establishing):
            self = .establishing(.init(login: establishing.login, kept: session, from: establishing.from, owed: establishing.owed))
        case .idle, .loading, .restoring, .rereading, .notLoggedIn, .terminated: break
        }
    }
}
