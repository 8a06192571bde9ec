internal import Foundation

extension AuthClient {
    /// Logs in whatever the state, replacing the current session only once the new one
    /// is saved: a refused, failed or unfinished login leaves the stored session as it
    /// was. The replaced session is then revoked at the provider, best effort (a failure
    /// is logged; the new session stays).
    ///
    /// - While signed in (`established`, `tokenExpired`) the current session keeps its
    ///   state and serves tokens while the login runs. A login that needs another step
    ///   (MFA) moves to ``SessionState/needsUserAction(_:)`` with the current session
    ///   still stored: call this again with the next factor to finish, or
    ///   ``logout(revoke:)``.
    /// - From `terminated`, the ended session is cleared first (a local logout).
    /// - Otherwise this is ``login(_:sessionDuration:)``.
    ///
    /// - Parameters:
    ///   - credentials: the adapter's own credentials, as for ``login(_:sessionDuration:)``.
    ///   - sessionDuration: as for ``login(_:sessionDuration:)``.
    ///   - revokingReplaced: whether to revoke the replaced session (default `true`).
    /// - Throws: what ``login(_:sessionDuration:)`` throws; `invalidState` while another
    ///   login is under way; `cancelled` when a logout overtook the login (the new
    ///   session is revoked, best effort).
    public func replaceSession(
        with credentials: some LoginCredentials, sessionDuration: Duration? = nil,
        revokingReplaced: Bool = true
    ) async throws {
        try checkNotShutDown()
        if lifecycle == .idle { try await start() }
        let duration = try resolveDuration(sessionDuration)
        if isTerminated { try await logout() }
        guard record != nil, isSignedIn || isAwaitingRenewalAction else {
            // Nothing signed in to keep: an ordinary login (which keeps a stored session
            // it cannot use yet, such as one whose store read failed, until it succeeds).
            try await login(credentials, sessionDuration: sessionDuration)
            return
        }
        let pending: UserAction? =
            if case .needsUserAction(let action)? = machine.state,
                action.expiresAt.map({ $0 > clock.now }) ?? true
            { action } else { nil }
        let generation = self.generation
        let provider = self.provider
        let report: AuthenticatedSession
        do { report = try await provider.login(credentials, sessionDuration: duration, pending: pending) } catch {
            let classified = provider.classify(error)
            logger.notice("login to replace the session failed; the session is kept", metadata: ["error": "\(classified)"])
            if classified.code == .needsUserAction, generation == self.generation, record != nil {
                feed(.replacementNeedsUser(classified.userAction ?? UserAction(kind: "unknown")))
                requireUserAction(classified)
            }
            throw classified
        }
        guard generation == self.generation, let replaced = record else {
            await revokeBestEffort(report, what: "the session of a login overtaken by a logout")
            throw AuthError(.cancelled, "the login was overtaken by a logout or another login")
        }
        do { try await replaceSignedInSession(with: report, generation: generation) } catch let error as AuthError where error.code == .storage {
            // The old session is still the stored one; the new one would be nobody's.
            await revokeBestEffort(report, what: "the new session, which could not be stored")
            throw error
        }
        if revokingReplaced, !replaced.tokens.hasSameCredentials(as: report.tokens) {
            await revokeBestEffort(replaced.authenticated, what: "the replaced session")
        }
    }

    /// Saves `report` as the session in place of the signed-in one, without leaving the
    /// signed-in states (``update(tokens:)`` and ``replaceSession(with:sessionDuration:revokingReplaced:)``).
    func replaceSignedInSession(with report: AuthenticatedSession, generation: Int) async throws {
        let fresh = VaultRecord(provider: vault.providerID, authenticated: report, validatedAt: clock.now)
        let vault = self.vault
        try await vault.withLock { try await vault.save(fresh) }
        guard generation == self.generation else { throw AuthError(.cancelled, "the session changed while the new one was being saved") }
        feed(.replaced(fresh))
        unsaved.clear()
        forgetUncleared()
        adopt(fresh)
        startBackgroundWork()
    }

    /// Revokes a session nobody uses any more; a failure is only logged.
    private func revokeBestEffort(_ session: AuthenticatedSession, what: String) async {
        do { try await provider.revoke(session) } catch {
            logger.notice("could not revoke \(what); it expires on its own", metadata: ["error": "\(provider.classify(error))"])
        }
    }
}
