internal import Foundation

/// How ``AuthClient/logout(revoke:)`` treats the provider's session.
public enum RevokeMode: Sendable, Hashable {
    /// Clear locally; the provider's session is left to expire.
    case none
    /// Secure logout: revoke at the provider first. If that fails for a reason that
    /// does not already end the session (network, 5xx, 429), throw and change nothing.
    case required
    /// Try to revoke, and clear locally whatever happens (Stytch's `forceClear`).
    case bestEffort
}

extension AuthClient {
    /// Logs in with adapter-specific credentials: `notLoggedIn → establishing →
    /// established`; the session is persisted before this returns.
    ///
    /// From ``SessionState/needsUserAction(_:)`` this finishes the pending action (an MFA
    /// code, a B2B organization): the adapter gets the action with the credentials. From
    /// `tokenExpired`, a failed login (wrong password, network, 5xx, 429 — anything but
    /// a termination) keeps the stored session: it is a verdict on the credentials tried.
    ///
    /// - Parameters:
    ///   - credentials: the adapter's own credentials (`StytchCredentials`,
    ///     `Auth0Credentials`, `SocialPlusLogin`, …); others are refused with
    ///     ``AuthError/Code/unsupportedCredentials``.
    ///   - sessionDuration: the session's length for providers that take one
    ///     (checked against the provider's bounds before any request); default
    ///     ``SessionOptions/sessionDuration``. Ignored by other providers.
    /// - Throws: ``AuthError``: `invalidState` when already signed in or terminated (log
    ///   out first), `invalidArgument` for a duration out of range, `needsUserAction` when
    ///   the provider needs another step (the state then says so too), the provider's
    ///   classified failure, or `storage`.
    public func login(_ credentials: some LoginCredentials, sessionDuration: Duration? = nil) async throws {
        try checkNotShutDown()
        if lifecycle == .idle { try await start() }
        let duration = try resolveDuration(sessionDuration)
        try checkCanEstablish(action: "log in")
        let pending: UserAction? = if case .needsUserAction(let action)? = machine.state { action } else { nil }
        let provider = self.provider
        try await establish { try await provider.login(credentials, sessionDuration: duration, pending: pending) }
    }

    /// Starts a session from tokens obtained elsewhere (an app's own login flow, a
    /// Stytch session hydrated from a web view): the provider checks them and reports
    /// the session's objects. While `established`, the new tokens replace the session
    /// without leaving `established`; if the provider refuses them, the current session
    /// is kept.
    ///
    /// - Throws: ``AuthError``: `invalidArgument` when the tokens are incomplete for the
    ///   provider (both tokens where it has two), `invalidState` while terminated or
    ///   establishing, or the provider's classified failure.
    public func update(tokens: SessionTokens) async throws {
        try checkNotShutDown()
        if lifecycle == .idle { try await start() }
        do { try provider.checkTokens(tokens) } catch {
            throw provider.classify(error)
        }
        let provider = self.provider
        if machine.state == .established {
            let generation = self.generation
            let report: AuthenticatedSession
            do { report = try await provider.validate(AuthenticatedSession(tokens: tokens)) } catch {
                throw provider.classify(error)
            }
            guard generation == self.generation, machine.state == .established else {
                throw AuthError(.cancelled, "the session changed while the new tokens were being checked")
            }
            try await replaceSignedInSession(with: report, generation: generation)
            return
        }
        try checkCanEstablish(action: "update the tokens")
        try await establish { try await provider.validate(AuthenticatedSession(tokens: tokens)) }
    }

    /// Signs out: clears the vault, memory and streams (`notLoggedIn`). Stops a login
    /// under way (a device-code poll, a browser login) as well.
    ///
    /// - Parameter mode: whether and how to revoke the session at the provider first
    ///   (see ``RevokeMode``). Default ``RevokeMode/none``.
    /// - Throws: the provider's classified failure when a ``RevokeMode/required``
    ///   revocation fails (nothing changed); ``AuthError/Code/storage`` when the vault
    ///   cannot be cleared (memory and streams are cleared anyway).
    public func logout(revoke mode: RevokeMode = .none) async throws {
        try checkNotShutDown()
        if mode != .none, let record, !isTerminated {
            do { try await provider.revoke(record.authenticated) } catch {
                let classified = provider.classify(error)
                if mode == .required, !classified.endsSession {
                    logger.notice("secure logout refused: revocation failed; nothing changed", metadata: ["error": "\(classified)"])
                    throw classified
                }
                logger.notice("revocation failed; clearing the session anyway", metadata: ["error": "\(classified)"])
            }
        }
        establishingTask?.cancel()
        establishingTask = nil
        feed(.logout)
        stopBackgroundWork()
        let ended = record?.tokens ?? vault.lastKnown?.tokens
        if ended != nil { Telemetry.sessionEnded(reason: "logout") }
        record = nil
        keptDuringLogin = nil
        plan = .none
        unsaved.clear()
        revalidationPending = false
        lastEndError = nil
        timers.setRestoreRetry(nil)
        var failure: AuthError?
        do { try await clearEndedSession(ended) } catch { failure = error }
        // Before the state says logged out: a login cannot begin while this runs, so
        // what the adapter drops is never what a new session just made.
        await provider.loggedOut()
        move(to: .notLoggedIn)
        publish()
        if let failure { throw failure }
    }

    // MARK: - Establishing

    /// Runs a login-like call: `establishing`, then `established` with the report
    /// persisted, or back to where the failure says.
    private func establish(_ call: @escaping @Sendable () async throws -> AuthenticatedSession) async throws {
        let previous = machine.state
        let login = Self.coreID(in: feed(.loginBegan), .login)
        beginEstablishing()
        let generation = self.generation
        let task = Task { try await call() }
        establishingTask = task
        do {
            let report = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            try await finishEstablishing(report, generation: generation, login: login)
        } catch {
            let classified =
                generation == self.generation
                ? provider.classify(error)
                : AuthError(.cancelled, "the login was overtaken by a logout or another login")
            if let login { feed(.loginAnswered(login, .failed(Self.coreLoginFailure(classified)))) }
            await failEstablishing(classified, generation: generation, previous: previous)
            throw classified
        }
    }

    private func checkCanEstablish(action: String) throws(AuthError) {
        switch machine.state {
        case .notLoggedIn?, .tokenExpired?, .needsUserAction?, .restoring?: return
        case .established?: throw AuthError(.invalidState, "cannot \(action): already signed in; log out first")
        case .establishing?: throw AuthError(.invalidState, "cannot \(action): a login is already under way")
        case .terminated(let reason)?: throw AuthError(.invalidState, "cannot \(action): the session was terminated (\(reason)); log out first")
        case nil: throw AuthError(.invalidState, "cannot \(action): the client has not started")
        }
    }

    private func beginEstablishing() {
        stopBackgroundWork()
        timers.setRestoreRetry(nil)
        keptDuringLogin = record
        record = nil
        plan = .none
        revalidationPending = false
        lastEndError = nil
        move(to: .establishing)
        publish()
    }

    private func finishEstablishing(_ report: AuthenticatedSession, generation: Int, login: Int?) async throws {
        guard generation == self.generation else { throw AuthError(.cancelled, "the login was overtaken by a logout or another login") }
        let fresh = VaultRecord(provider: vault.providerID, authenticated: report, validatedAt: clock.now)
        let vault = self.vault
        try await vault.withLock { try await vault.save(fresh) }
        guard generation == self.generation else { throw AuthError(.cancelled, "the login was overtaken by a logout or another login") }
        if let login { feed(.loginAnswered(login, .saved(fresh))) }
        establishingTask = nil
        keptDuringLogin = nil
        unsaved.clear()
        forgetUncleared()
        renewals.backoff.reset()
        adopt(fresh, publishing: false)
        move(to: .established)
        publish()
        startBackgroundWork()
    }

    private func failEstablishing(_ error: AuthError, generation: Int, previous: SessionState?) async {
        guard generation == self.generation else { return }
        establishingTask = nil
        // The set-aside session as it is now: a save retry may have adopted a newer record.
        let kept = keptDuringLogin
        keptDuringLogin = nil
        logger.notice("login failed", metadata: ["error": "\(error)"])
        if error.code == .needsUserAction {
            // The stored session (if any) is kept: the user finishes the step, or logs out.
            if let kept {
                record = kept
                plan = provider.renewalPlan(for: kept.tokens)
            }
            requireUserAction(error)
            return
        }
        if case .needsUserAction(let action)? = previous, error.code != .terminated,
            action.expiresAt.map({ $0 > clock.now }) ?? true
        {
            // A wrong code or a failed step: the pending action stays for another try.
            if let kept {
                record = kept
                plan = provider.renewalPlan(for: kept.tokens)
            }
            requireUserAction(AuthError.needsUserAction(action, error.message))
            return
        }
        if let kept, error.code != .terminated {
            // A failed login is a verdict on the credentials tried, not on the stored
            // session (a wrong password answered by a login endpoint): it stays.
            record = kept
            plan = provider.renewalPlan(for: kept.tokens)
            // Expired when the login began — unless an outlived renewal's rotated tokens joined it.
            move(to: previous == .tokenExpired ? (isExpired ? .tokenExpired : .established) : .notLoggedIn)
            publish()
            if machine.isSignedIn { startBackgroundWork() }
            return
        }
        if let ended = kept?.tokens { try? await clearEndedSession(ended) }
        guard generation == self.generation, machine.state == .establishing else { return }
        move(to: .notLoggedIn)
        publish()
    }

    var isTerminated: Bool {
        if case .terminated? = machine.state { true } else { false }
    }

    func resolveDuration(_ requested: Duration?) throws(AuthError) -> Duration? {
        guard provider.sessionDurationBounds != nil else { return nil }
        let duration = requested ?? options.sessionDuration
        try provider.checkSessionDuration(duration)
        return duration
    }
}
