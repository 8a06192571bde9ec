internal import Foundation

extension AuthClient {
    /// Takes `record` as the session, recomputing the renewal plan; a fresh token
    /// moves `tokenExpired` back to `established`.
    func adopt(_ record: VaultRecord, publishing: Bool = true) {
        let tokensChanged = !(self.record?.tokens.hasSameCredentials(as: record.tokens) ?? false)
        let renewedPlan = provider.renewalPlan(for: record.tokens)
        // The same token strings with a new lifetime (a provider that reissues an unchanged
        // access token) are a renewal too: the state and the timers follow the plan.
        let planChanged = renewedPlan != plan
        self.record = record
        plan = renewedPlan
        if tokensChanged || planChanged {
            renewals.backoff.reset()
            // Tokens already expired by the local clock when they arrive keep `tokenExpired`:
            // the machine, told of a renewal, learns it as from its expiry timer.
            if isExpired, machine.state == .tokenExpired { feed(.expiryFired) }
            if !isExpired, machine.state == .tokenExpired || isAwaitingRenewalAction { move(to: .established) }
            if machine.isSignedIn { scheduleTimers() }
        }
        if publishing { publish() }
    }

    /// Ends the session after the provider rejected it (or another process signed out):
    /// `terminated(reason)` for a termination, `notLoggedIn` otherwise.
    func endSession(_ error: AuthError, clear: Bool = true) async {
        stopBackgroundWork()
        let ended = record?.tokens ?? vault.lastKnown?.tokens
        record = nil
        keptDuringLogin = nil
        plan = .none
        unsaved.clear()
        revalidationPending = false
        lastEndError = error.code == .notLoggedIn ? nil : error
        if ended != nil { Telemetry.sessionEnded(reason: error.code.description) }
        if clear {
            let ending = generation
            do { try await clearEndedSession(ended) } catch {
                logger.error("cannot clear the stored session; retrying", metadata: ["error": "\(error)"])
            }
            // A logout while the store removed the ended session took it from here (soak
            // seed 153): it has the last word, as in the machine, which heard it after this end.
            guard ending == generation else { return }
        }
        if error.code == .terminated, let reason = error.terminationReason {
            move(to: .terminated(reason))
        } else {
            move(to: .notLoggedIn)
        }
        publish()
    }

    /// The provider needs the user before the session can go on: background retries
    /// stop, the session (if any) is kept, and the state says what is needed.
    func requireUserAction(_ error: AuthError) {
        let action = error.userAction ?? UserAction(kind: "unknown")
        logger.notice("the provider needs the user to act", metadata: ["action": "\(action)"])
        stopBackgroundWork()
        move(to: .needsUserAction(action))
        publish()
        if record == nil, let expiresAt = action.expiresAt { startActionTimer(action, expiresAt: expiresAt) }
    }

    func clearVault() async throws(AuthError) {
        let vault = self.vault
        do { try await vault.withLock { try await vault.clear() } } catch {
            throw error as? AuthError ?? AuthError(.storage, "cannot remove the stored session: \(error)", underlying: error)
        }
    }

    var isExpired: Bool { plan.timeLeft(at: clock.now) <= 0 }

    /// Signed in with a session that can serve tokens: established or expired, or a
    /// record being restored.
    var isSignedIn: Bool {
        switch machine.state {
        case .established?, .tokenExpired?: true
        case nil, .restoring?: record != nil
        default: false
        }
    }

    /// In `needsUserAction` because a renewal of a kept session needs the user.
    var isAwaitingRenewalAction: Bool {
        if case .needsUserAction? = machine.state, record != nil { true } else { false }
    }

    func notSignedInError() -> AuthError {
        if lifecycle == .shutDown { return AuthError(.cancelled, "the client has shut down") }
        switch machine.state {
        case .terminated(let reason)?:
            return AuthError.terminated(reason, "the session was terminated by the provider (\(reason))")
        case .needsUserAction(let action)?:
            return AuthError.needsUserAction(action, "the session needs the user to act (\(action.kind)) before it can continue")
        case .restoring?:
            return AuthError(.storage, "the stored session could not be read yet: \(lastRestoreError?.message ?? "unknown")")
        default:
            return AuthError(.notLoggedIn, "nobody is signed in")
        }
    }

    func markExpiredIfDue() {
        if isExpired, machine.state == .established {
            feed(.expiryFired)
            move(to: .tokenExpired)
            publish()
        }
    }

    func move(to next: SessionState) {
        let previous = machine.state
        guard previous != next else { return }
        if machine.transition(to: next) {
            logger.info("session state changed", metadata: ["from": "\(previous.map(String.init(describing:)) ?? "start")", "to": "\(next)"])
        } else {
            logger.error(
                "illegal session state transition refused",
                metadata: ["from": "\(previous.map(String.init(describing:)) ?? "start")", "to": "\(next)"])
        }
    }

    /// Publishes the objects, then the state, so a subscriber that sees the state
    /// finds the objects already in place. Consumers run in their own tasks: nothing
    /// here waits for app code.
    func publish() {
        guard let actor = machine.state else { return }
        let state = coreState(comparedWith: actor)
        switch state {
        case .notLoggedIn: broadcasters.publishAll(.notLoggedIn)
        case .terminated(let reason): broadcasters.publishAll(.terminated(reason))
        case .established, .tokenExpired:
            if let record { broadcasters.publish(record) }
        case .establishing, .restoring, .needsUserAction: break
        }
        broadcasters.state.publish(state)
    }
}

extension SessionStateMachine {
    /// Established or expired: a session whose tokens are in use.
    var isSignedIn: Bool {
        switch state {
        case .established?, .tokenExpired?: true
        default: false
        }
    }
}
