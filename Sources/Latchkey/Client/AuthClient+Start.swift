internal import Foundation

extension AuthClient {
    /// Loads the stored session, validates it with the provider, and publishes the result.
    ///
    /// - A session the provider definitively rejects is cleared (`notLoggedIn`); one it
    ///   ended (a ban found at restore) lands in `terminated(reason)`, with the answer in
    ///   ``endError``; one whose renewal needs the user lands in `needsUserAction`.
    /// - When the provider cannot be reached the stored session is kept and published as
    ///   not yet revalidated (``isRevalidationPending``), and validation is retried with
    ///   back-off.
    /// - When the store cannot be read (keyring refusing, EACCES, a locked file) nothing is
    ///   cleared: the state is `restoring`, ``restoreError`` says why, and reading is
    ///   retried with back-off until it works or the app logs in.
    /// - A stored record of another provider or endpoint, or of a newer format, is left
    ///   untouched, nothing is sent with it, and the client starts `notLoggedIn`
    ///   (``storedSessionConflict`` says why).
    ///
    /// Calling `start()` again does nothing.
    ///
    /// - Parameter validating: `false` trusts the stored session without asking the
    ///   provider now (a command-line tool that only needs a token: no round trip unless
    ///   a renewal is due); the heartbeat, when on, validates it later.
    /// - Throws: ``AuthError/Code/cancelled`` after ``shutdown()``.
    public func start(validating: Bool = true) async throws {
        try checkNotShutDown()
        guard lifecycle == .idle else { return }
        lifecycle = .running
        feed(.start)
        await restore(validating: validating)
    }

    /// One attempt to read and check the stored session.
    func restore(validating: Bool = true) async {
        let reading = generation
        let loaded: Result<VaultRecord?, AuthError>
        do { loaded = .success(try await vault.load()) } catch { loaded = .failure(error) }
        // Shut down while the store was read: the streams have finished, and a state
        // they can no longer deliver must not be taken.
        guard lifecycle == .running else { return }
        // A login (or a logout) began while a retry read the store: the answer is dropped,
        // and the login's session is the one that counts.
        guard reading == generation else {
            logger.debug("a store read answered after the session moved on; dropped")
            return
        }
        let stored: VaultRecord?
        do {
            stored = try loaded.get()
        } catch  where error.code == .vaultIncompatible {
            logger.warning("stored session not used", metadata: ["reason": "\(error.message)"])
            lastStoredSessionConflict = error
            stored = nil
        } catch {
            logger.error("cannot read the stored session; keeping it and retrying", metadata: ["error": "\(error)"])
            lastRestoreError = error
            feed(.storeReadFailed)
            move(to: .restoring)
            publish()
            scheduleRestoreRetry()
            return
        }
        lastRestoreError = nil
        guard let stored else {
            feed(.storeRead(nil))
            move(to: .notLoggedIn)
            publish()
            return
        }
        let check = CheckTicket(id: Self.coreID(in: feed(.storeRead(stored)), .check), generation: generation)
        adopt(stored, publishing: false)
        do {
            if validating { try await checkSession(stored, check: check) }
            guard applies(check) else { return }
            revalidationPending = false
            feedCheckAnswered(check.id, .valid, restoring: true)
        } catch let error as AuthError where error.endsSession {
            logger.notice("stored session rejected by the provider", metadata: ["error": "\(error)"])
            guard applies(check) else { return }
            feedCheckAnswered(check.id, .failed(Self.coreFailure(error)))
            await endSession(error)
            return
        } catch let error as AuthError where error.code == .needsUserAction {
            guard applies(check) else { return }
            feedCheckAnswered(check.id, .failed(Self.coreFailure(error)))
            requireUserAction(error)
            return
        } catch {
            guard applies(check) else { return }
            logger.notice("stored session kept without revalidation", metadata: ["error": "\(error)"])
            revalidationPending = true
            feedCheckAnswered(check.id, .failed(.transient), restoring: true)
        }
        if !machine.isSignedIn { move(to: isExpired ? .tokenExpired : .established) }
        publish()
        // A renewal an app began while the session was checked is the session's own: the
        // check's answer does not end it (it would answer `cancelled`, its tokens untaken).
        startBackgroundWork(endingEarlierWork: false)
    }

    /// Reads the store again after a failure, with back-off, while nothing else has
    /// happened to the session (a login meanwhile stops it).
    func scheduleRestoreRetry() {
        guard timers.restoreRetry == nil else { return }
        timers.setRestoreRetry(retryingWithBackoff { await $0.retryRestore() })
    }

    /// - Returns: whether to try again later.
    private func retryRestore() async -> Bool {
        guard lifecycle == .running, machine.state == .restoring else {
            timers.restoreRetryEnded()
            return false
        }
        timers.restoreRetryEnded()
        feed(.restoreRetryFired)
        await restore()
        return false
    }
}
