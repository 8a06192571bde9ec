// The transitions of `AuthClient.StateMachine`, one method per state. Each returns the
// actions for the caller to perform; none performs anything itself.

extension AuthClient.StateMachine {
    // MARK: Before the session is known

    mutating func idle(_ event: Event) -> [Action] {
        switch event {
        case .start:
            state = .loading
            return [.readStore]
        case .shutdown:
            return shutDown(kept: nil, owed: nil)
        default:
            return [.refused]
        }
    }

    mutating func loading(_ event: Event) -> [Action] {
        switch event {
        case .storeRead(nil):
            state = .notLoggedIn(owed: nil)
            return [.publish(.notLoggedIn)]
        case .storeRead(let record?):
            var session = Session(record)
            let id = makeID()
            session.check = id
            state = .validating(session)
            return [.validate(id, record)]
        case .storeReadFailed:
            state = .restoring
            return [.publish(.restoring), .arm(.restoreRetry)]
        case .logout:
            return logout(ended: nil)
        case .shutdown:
            return shutDown(kept: nil, owed: nil)
        default:
            return [.refused]
        }
    }

    mutating func restoring(_ event: Event) -> [Action] {
        switch event {
        case .restoreRetryFired:
            state = .rereading
            return [.readStore]
        case .loginBegan:
            return [.disarm(.restoreRetry)] + beginLogin(kept: nil, from: .restoring, owed: nil)
        case .logout:
            return [.disarm(.restoreRetry)] + logout(ended: nil)
        case .shutdown:
            return [.disarm(.restoreRetry)] + shutDown(kept: nil, owed: nil)
        default:
            return [.refused]
        }
    }

    /// Reading the store again: its answer as at start, or a login that drops it.
    mutating func rereading(_ event: Event) -> [Action] {
        switch event {
        case .loginBegan: beginLogin(kept: nil, from: .restoring, owed: nil)
        default: loading(event)
        }
    }

    mutating func validating(_ session: Session, _ event: Event) -> [Action] {
        var session = session
        switch event {
        case .checkAnswered(_, let answer):
            session.check = nil
            switch answer {
            case .valid, .merged, .mergedUnsaved:
                let saveRetry = confirmed(answer, into: &session)
                return saveRetry + signIn(session)
            case .failed(.transient):
                session.revalidationPending = true
                return signIn(session)
            case .failed(.ended(let ending)): return end(session.record, ending)
            case .failed(.needsUserAction(let action)): return needUser(action, kept: session)
            }
        case .renewalWanted, .renewalBesideWanted:
            let actions = renew(&session, beside: event == .renewalBesideWanted)
            state = .validating(session)
            return actions
        case .tokenSetWanted:
            let actions = renewApart(&session)
            state = .validating(session)
            return actions
        case .renewalAnswered(let id, let answer):
            return renewed(session, id, answer)
        case .expiryFired:
            session.expired = true
            state = .validating(session)
            return []
        case .logout:
            return logout(ended: session.record)
        case .shutdown:
            return shutDown(kept: session, owed: nil)
        default:
            return [.refused]
        }
    }

    // MARK: Signed in

    mutating func signedIn(_ session: Session, _ event: Event) -> [Action] {
        var session = session
        switch event {
        case .heartbeatFired:
            var actions = flush(session)
            if session.check == nil {
                let id = makeID()
                session.check = id
                actions.append(.validate(id, session.record))
            }
            state.replaceSession(with: session)
            return actions
        case .checkAnswered(_, let answer):
            session.check = nil
            switch answer {
            case .valid, .merged, .mergedUnsaved:
                session.revalidationPending = false
                let saveRetry = confirmed(answer, into: &session)
                state.replaceSession(with: session)
                return saveRetry
            case .failed(.transient):
                state.replaceSession(with: session)
                return []
            case .failed(.ended(let ending)): return end(session.record, ending)
            case .failed(.needsUserAction(let action)): return needUser(action, kept: session)
            }
        case .renewalWanted, .renewalBesideWanted:
            let actions = flush(session) + renew(&session, beside: event == .renewalBesideWanted)
            state.replaceSession(with: session)
            return actions
        case .tokenSetWanted:
            let actions = flush(session) + renewApart(&session)
            state.replaceSession(with: session)
            return actions
        case .renewalAnswered(let id, let answer):
            return renewed(session, id, answer)
        case .replaced(let record):
            return replaced(session, by: record)
        case .replacementNeedsUser(let action):
            return needUser(action, kept: session)
        case .expiryFired:
            guard case .established = state else { return [] }
            session.expired = true
            state = .tokenExpired(session)
            return [.publish(.tokenExpired)]
        case .loginBegan:
            guard case .tokenExpired = state else { return [.refused] }
            return beginLogin(kept: session, from: .tokenExpired, owed: nil)
        case .logout:
            return logout(ended: session.record)
        case .shutdown:
            return shutDown(kept: session, owed: nil)
        default:
            return [.refused]
        }
    }

    mutating func needsUserAction(_ action: UserAction, kept: Session?, _ event: Event) -> [Action] {
        switch event {
        case .loginBegan:
            return beginLogin(kept: kept, from: .needsUserAction(action), owed: nil)
        case .renewalWanted, .renewalBesideWanted:
            // An explicit renewal of a kept session: the user's step may not be needed after
            // all. With a live token the session is established again at once; with an
            // expired one it waits here for the renewal (the diagram has no move from
            // `needsUserAction` to `tokenExpired`).
            guard var session = kept else { return [.refused] }
            let actions = renew(&session, beside: event == .renewalBesideWanted)
            if session.expired {
                state = .needsUserAction(action, kept: session)
                return actions
            }
            state = .established(session)
            return [.publish(.established)] + actions
        case .renewalAnswered(let id, let answer):
            guard let kept else { return [.refused] }
            return renewed(kept, id, answer)
        case .replaced(let record):
            guard let kept else { return [.refused] }
            return replaced(kept, by: record)
        case .replacementNeedsUser(let next):
            guard let kept else { return [.refused] }
            return needUser(next, kept: kept)
        case .actionExpired:
            guard kept == nil else { return [] }
            state = .notLoggedIn(owed: nil)
            return [.publish(.notLoggedIn)]
        case .logout:
            return logout(ended: kept?.record)
        case .shutdown:
            return shutDown(kept: kept, owed: nil)
        default:
            return [.refused]
        }
    }

    // MARK: Logging in and out

    mutating func establishing(_ establishing: Establishing, _ event: Event) -> [Action] {
        switch event {
        case .loginAnswered(_, .saved(let record)):
            let forgetOwed: [Action] = establishing.owed == nil ? [] : [.disarm(.removalRetry)]
            return forgetOwed + signIn(Session(record))
        case .loginAnswered(_, .failed(let failure)):
            return loginFailed(establishing, failure)
        case .logout:
            return [.cancelLogin] + logout(ended: establishing.kept?.record ?? establishing.owed)
        case .shutdown:
            return [.cancelLogin] + shutDown(kept: establishing.kept, owed: establishing.owed)
        default:
            return [.refused]
        }
    }

    private mutating func loginFailed(_ establishing: Establishing, _ failure: Failure) -> [Action] {
        if case .needsUserAction(let action) = failure { return needUser(action, kept: establishing.kept) }
        let terminated = if case .ended(.terminated) = failure { true } else { false }
        if case .needsUserAction(let action) = establishing.from, !terminated {
            // A wrong code: the pending step stays for another try.
            return needUser(action, kept: establishing.kept)
        }
        if let kept = establishing.kept {
            // A failed login is a verdict on the credentials tried, not on the stored session.
            guard terminated else { return signIn(kept) }
            state = .notLoggedIn(owed: kept.record)
            return [.clear(kept.record), .publish(.notLoggedIn)]
        }
        state = .notLoggedIn(owed: establishing.owed)
        return [.publish(.notLoggedIn)]
    }

    mutating func ended(_ reason: TerminationReason?, owed: Record?, _ event: Event) -> [Action] {
        switch event {
        case .loginBegan where reason == nil:
            return beginLogin(kept: nil, from: .notLoggedIn, owed: owed)
        case .logout:
            return logout(ended: owed)
        case .shutdown:
            return shutDown(kept: nil, owed: owed)
        default:
            return [.refused]
        }
    }

    mutating func shutDown(_ event: Event) -> [Action] {
        if case .shutdown = event { return [] }
        return [.refused]
    }

    // MARK: Moves shared by several states

    private mutating func signIn(_ session: Session) -> [Action] {
        state = session.expired ? .tokenExpired(session) : .established(session)
        return [.arm(.heartbeat), .arm(.renewal), .arm(.expiry), .publish(session.expired ? .tokenExpired : .established)]
    }

    private mutating func renew(_ session: inout Session, beside: Bool = false) -> [Action] {
        if let id = session.renewal, !beside { return [.join(id)] }
        let id = makeID()
        if session.renewal == nil { session.renewal = id } else { session.beside.insert(id) }
        renewals[id] = session.record
        return [.renew(id, from: session.record)]
    }

    /// Tokens the provider confirmed replace the signed-in session (``Event/replaced(_:)``).
    /// The old session's renewals, check and token sets in flight outlive it: their answers
    /// find another record, and a rotated token they bring back is saved only where the
    /// vault still holds what it replaced.
    private mutating func replaced(_ session: Session, by record: Record) -> [Action] {
        let shown: [Action] = if case .established = state { [] } else { [.publish(.established)] }
        let saveRetry: [Action] = session.unsaved == nil ? [] : [.disarm(.saveRetry)]
        state = .established(Session(record))
        return saveRetry + Self.stopSession + [.arm(.heartbeat), .arm(.renewal), .arm(.expiry)] + shown
    }

    private mutating func renewApart(_ session: inout Session) -> [Action] {
        let id = makeID()
        session.apart.insert(id)
        renewals[id] = session.record
        return [.renewApart(id, from: session.record)]
    }

    private mutating func renewed(_ session: Session, _ id: Int, _ answer: RenewalAnswer) -> [Action] {
        var session = session
        if session.renewal == id { session.renewal = nil } else { session.beside.remove(id) }
        switch answer {
        case .renewed(let record, let base, let saved):
            let saveRetry = took(record, base: base, saved: saved, into: &session)
            session.expired = false
            if case .validating = state {
                state = .validating(session)
                return saveRetry
            }
            return saveRetry + reestablish(session)
        case .failed(.transient):
            state.replaceSession(with: session)
            return [.arm(.renewal)]
        case .failed(.ended(let ending)):
            return end(session.record, ending)
        case .failed(.needsUserAction(let action)):
            return needUser(action, kept: session)
        case .cancelled:
            state.replaceSession(with: session)
            return []
        }
    }

    /// Fresh tokens (renewed here or elsewhere) establish the session again, with timers
    /// set for their lifetime.
    mutating func reestablish(_ session: Session) -> [Action] {
        state = .established(session)
        return [.arm(.renewal), .arm(.expiry), .publish(.established)]
    }

    func flush(_ session: Session) -> [Action] {
        guard let unsaved = session.unsaved else { return [] }
        return [.flush(session.record, base: unsaved.base)]
    }

    mutating func end(_ record: Record, _ ending: Ending) -> [Action] {
        switch ending {
        case .unrecoverable: state = .notLoggedIn(owed: record)
        case .terminated(let reason): state = .terminated(reason, owed: record)
        case .signedOutElsewhere:
            // The store is already empty: nothing to clear, nothing owed.
            state = .notLoggedIn(owed: nil)
            return Self.stopSession + [.publish(.notLoggedIn)]
        }
        return Self.stopSession + [.clear(record), .publish(state.published ?? .notLoggedIn)]
    }

    mutating func needUser(_ action: UserAction, kept: Session?) -> [Action] {
        state = .needsUserAction(action, kept: kept.map(Self.quiesced))
        let timer: [Action] = kept == nil && action.expiresAt != nil ? [.arm(.action)] : []
        return Self.stopSession + [.publish(.needsUserAction(action))] + timer
    }

    mutating func beginLogin(kept: Session?, from: SessionState, owed: Record?) -> [Action] {
        let id = makeID()
        state = .establishing(Establishing(login: id, kept: kept.map(Self.quiesced), from: from, owed: owed))
        return Self.stopSession + [.publish(.establishing), .login(id)]
    }

    private mutating func logout(ended: Record?) -> [Action] {
        state = .notLoggedIn(owed: ended)
        return Self.stopSession + [.clear(ended), .publish(.notLoggedIn)]
    }

    private mutating func shutDown(kept: Session?, owed: Record?) -> [Action] {
        let kept = kept.map(Self.quiesced)
        state = .shutDown(kept: kept, owed: owed)
        var actions = Self.stopSession + [.disarm(.restoreRetry), .disarm(.removalRetry), .disarm(.saveRetry)]
        actions += renewals.keys.sorted().map { .await($0) }
        if let kept, let unsaved = kept.unsaved { actions.append(.flush(kept.record, base: unsaved.base)) }
        if let owed { actions.append(.removeIfStored(owed)) }
        return actions + [.finishStreams]
    }

    /// A session whose background work stopped: nothing of it is in flight any more.
    private static func quiesced(_ session: Session) -> Session {
        var session = session
        session.renewal = nil
        session.check = nil
        session.apart = []
        session.beside = []
        return session
    }

    private static var stopSession: [Action] {
        [.disarm(.heartbeat), .disarm(.renewal), .disarm(.expiry), .disarm(.action)]
    }
}
