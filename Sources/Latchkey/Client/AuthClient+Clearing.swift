internal import Foundation

extension AuthClient {
    /// Removes the stored session after it ended (a logout, the provider's verdict). When
    /// the store refuses twice in a row, the ended session's tokens are remembered and
    /// removal is retried with back-off, and by ``shutdown()``: a session that ended must
    /// not come back at the next start.
    ///
    /// - Parameter ended: the tokens of the session that ended (memory's record, else
    ///   what this process last read or wrote); without them nothing can be retried safely.
    func clearEndedSession(_ ended: SessionTokens?) async throws(AuthError) {
        do {
            // A second try at once: a passing failure (a busy disk, a contended lock) is
            // over, and a process killed before the first retry would leave the session.
            do { try await clearVault() } catch { try await clearVault() }
            uncleared = nil
            timers.setRemovalRetry(nil)
            feed(.clearAnswered(removed: true))
        } catch {
            feed(.clearAnswered(removed: false))
            if let ended {
                uncleared = ended
                scheduleClearRetry()
            }
            throw error
        }
    }

    /// Retries removing an ended session with back-off on the client's clock, until it is
    /// gone, replaced (a login, another process) or the client shuts down.
    func scheduleClearRetry() {
        guard timers.removalRetry == nil else { return }
        timers.setRemovalRetry(retryingWithBackoff { await $0.retryClear() })
    }

    /// - Returns: whether to try again later.
    private func retryClear() async -> Bool {
        guard lifecycle == .running else { return false }
        let done = await removeUncleared()
        if done { timers.removalRetryEnded() }
        return !done
    }

    /// Runs `attempt` after each wait of a ``Backoff`` on the client's clock, for as long
    /// as it asks to try again (the restore's and the removal's retries).
    func retryingWithBackoff(
        _ backoff: Backoff = Backoff(), _ attempt: @escaping @Sendable (AuthClient) async -> Bool
    ) -> Task<Void, Never> {
        let clock = self.clock
        return Task {
            var backoff = backoff
            while true {
                do { try await clock.sleep(for: backoff.next()) } catch { return }
                guard await attempt(self) else { return }
            }
        }
    }

    /// One try at removing the ended session: only while the store still holds exactly its
    /// tokens. A session saved since (a login here, another process) is never touched.
    ///
    /// - Returns: whether nothing is left to remove.
    @discardableResult
    func removeUncleared() async -> Bool {
        guard let ended = uncleared else { return true }
        let vault = self.vault
        do {
            let removed: Bool = try await vault.withLock {
                guard let stored = try await vault.load(), stored.tokens.hasSameCredentials(as: ended) else { return false }
                try await vault.clear()
                return true
            }
            if removed { logger.info("the ended session was removed from the store after an earlier failure") }
        } catch let error as AuthError where error.code == .vaultIncompatible {
            // Not a record of this provider's session any more: nothing of ours to remove.
        } catch {
            logger.warning("the ended session is still in the store; retrying", metadata: ["error": "\(AuthError.classifying(error))"])
            return false
        }
        if uncleared.map({ $0.hasSameCredentials(as: ended) }) ?? false { uncleared = nil }
        feed(.clearAnswered(removed: uncleared == nil))
        return uncleared == nil
    }

    /// A new session was saved over whatever the store held: nothing ended is left there.
    func forgetUncleared() {
        uncleared = nil
        timers.setRemovalRetry(nil)
    }
}
