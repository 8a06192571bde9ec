internal import Foundation

extension AuthClient {
    // MARK: - Tokens the vault does not hold yet

    /// Tries once more to persist tokens a failed save left in memory only. The vault
    /// is overwritten only while it still holds what the memory record replaced (or
    /// nothing readable); a record another process wrote meanwhile wins, and a vault
    /// emptied where it held that record is another process's logout: the session ends
    /// as there, and the tokens are not written back over it.
    func flushUnsaved() async {
        guard unsaved.isPending, record ?? keptDuringLogin != nil else { return }
        let generation = self.generation
        let vault = self.vault
        enum Flush: Sendable {
            case saved(VaultRecord)
            case replaced(VaultRecord)
            case signedOutElsewhere
            case nothing
        }
        do {
            let result: Flush = try await vault.withLock {
                // Memory as it is now: a renewal may have saved newer tokens (and cleared
                // the mark) while this waited for the lock.
                let memory = await self.memorySnapshot()
                guard memory.generation == generation, let pending = memory.unsaved, let record = memory.record else { return .nothing }
                let stored: VaultRecord?
                do {
                    stored = try await vault.load()
                    if stored == nil, pending.base != nil { return .signedOutElsewhere }
                } catch {
                    stored = vault.lastKnown
                }
                if let stored, !stored.tokens.hasSameCredentials(as: record.tokens),
                    let base = pending.base, !stored.tokens.hasSameCredentials(as: base)
                {
                    return .replaced(stored)
                }
                try await vault.save(record)
                return .saved(record)
            }
            guard generation == self.generation else { return }
            switch result {
            case .nothing: return
            case .saved(let saved):
                feed(.saveAnswered(saved, saved: true))
                // Memory may have moved on again since: only what was saved is no longer unsaved.
                guard (record ?? keptDuringLogin)?.tokens.hasSameCredentials(as: saved.tokens) ?? false else { return }
                unsaved.clear()
                logger.info("renewed tokens saved after an earlier failure")
            case .replaced(let stored):
                if let memory = record ?? keptDuringLogin { feed(.saveAnswered(memory, saved: false)) }
                feedRenewedElsewhere(stored)
                unsaved.clear()
                logger.notice("the stored session was replaced by another process; adopting it")
                if record == nil { keptDuringLogin = stored } else { adopt(stored) }
            case .signedOutElsewhere:
                if let memory = record ?? keptDuringLogin { feed(.storeEmptiedElsewhere(memory)) }
                unsaved.clear()
                logger.notice("the stored session was removed by another process; its renewed tokens are not written back")
                guard lifecycle == .running else { return }
                if record == nil {
                    keptDuringLogin = nil
                } else {
                    await endSession(AuthError(.notLoggedIn, "signed out in another process"), clear: false)
                }
            }
        } catch {
            logger.warning("renewed tokens still not saved", metadata: ["error": "\(AuthError.classifying(error))"])
        }
    }

    /// Retries the save of tokens the store refused on the client's clock, from half a
    /// second with back-off, until they are saved or gone — without waiting for a call or a
    /// heartbeat (a ``SessionHost``'s clients have neither, and a rotated refresh token held
    /// in memory only is lost with the process). Outlives a login that set the session
    /// aside (its tokens are still owed); ``shutdown()`` stops it and saves on its own.
    ///
    /// A new failure starts the loop again from its first, short wait: a loop left asleep
    /// in a long back-off by earlier failures (whose tokens a call has since saved) would
    /// otherwise make the new tokens wait for its next tick, up to 30 s.
    func scheduleSaveRetry() {
        guard lifecycle == .running else { return }
        timers.setSaveRetry(retryingWithBackoff(Backoff(base: .milliseconds(500), cap: .seconds(30))) { await $0.retrySave() })
    }

    /// - Returns: whether to try again later.
    private func retrySave() async -> Bool {
        guard lifecycle == .running, unsaved.isPending else {
            timers.saveRetryEnded()
            return false
        }
        feed(.saveRetryFired)
        await flushUnsaved()
        guard unsaved.isPending else {
            timers.saveRetryEnded()
            return false
        }
        return true
    }

    /// What memory holds when a locked section begins: the record, the unsaved mark and
    /// the generation. Read under the store's lock, never before it: a record taken before
    /// waiting for the lock may be one a renewal replaced meanwhile, and writing it back
    /// would bring a spent refresh token back into the vault. Even then memory may lag
    /// (a renewal that released the lock adopts its record a moment later): when the vault
    /// cannot be read, ``SessionVault/lastKnown`` comes first.
    struct MemorySnapshot: Sendable {
        let record: VaultRecord?
        let unsaved: UnsavedRecord?
        let generation: Int
        /// The check the state machine waits for.
        let check: Int?

        /// Whether `check`'s answer applies to this memory (see ``CheckTicket``).
        func allows(_ ticket: CheckTicket) -> Bool {
            ticket.applies(awaiting: check, generation: generation)
        }
    }

    func memorySnapshot() -> MemorySnapshot {
        // A session a login set aside still owes its unsaved tokens (only a save retry
        // runs while it is set aside: the login ended every renewal's and check's generation).
        MemorySnapshot(record: record ?? keptDuringLogin, unsaved: unsaved.record, generation: generation, check: core.state.session?.check)
    }

    /// The record a locked section works from: memory's when it holds tokens the vault
    /// does not (a save failed), else the vault's. Memory takes a renewed record only after
    /// the renewal released the lock, so when the vault's last known record is neither
    /// memory's nor the one an unsaved record replaced, a save succeeded meanwhile and it
    /// is the newer.
    ///
    /// A vault read empty where it held what memory's unsaved record replaced is another
    /// process's logout: `nil`, as for an empty vault, and nothing is renewed or merged
    /// back over it (found by the state machine's model check).
    ///
    /// When the vault cannot be read: what this process last read or wrote there — unless
    /// that holds a refresh token. Another writer (a client shut down in the middle of its
    /// renewal, another process) may have rotated it since, and presenting a spent refresh
    /// token ends the session at providers with reuse detection: the read failure is thrown
    /// instead (the session is kept, and the caller retries).
    static func lockedBase(_ memory: MemorySnapshot, vault: SessionVault) async throws(AuthError) -> VaultRecord? {
        if let pending = memory.unsaved, let record = memory.record {
            if pending.base != nil {
                // Unreadable: memory's record, as below. Only an answer of "empty" is a logout.
                do { if try await vault.load() == nil { return nil } } catch {}
            }
            if let known = vault.lastKnown, !known.tokens.hasSameCredentials(as: record.tokens),
                !(pending.base.map { known.tokens.hasSameCredentials(as: $0) } ?? false)
            {
                return known
            }
            return record
        }
        do { return try await vault.load() } catch {
            let fallback = vault.lastKnown ?? memory.record
            if fallback?.tokens.refreshToken != nil { throw error }
            return fallback
        }
    }

    /// A renewal that finished after its generation ended (a shutdown, a step the user
    /// must take, a logout or another login) with rotated tokens the store refused: the
    /// provider has spent the refresh token they replaced, so they must not be forgotten.
    /// While memory still holds the session they renew, they become its record, marked
    /// unsaved (a shutdown saves them before it returns; a kept session retries the save
    /// as always). A session that was ended or replaced gets them in the vault only if the
    /// vault still holds the tokens they replaced: never a logged-out session brought back.
    func keepOutlivedRenewal(_ renewed: VaultRecord, base: SessionTokens, renewedFrom: SessionTokens, saveError: AuthError) async {
        // Whether `held` is the session this renewal renewed (as the vault or memory had it).
        func isRenewed(_ held: VaultRecord?) -> Bool {
            held.map { $0.tokens.hasSameCredentials(as: base) || $0.tokens.hasSameCredentials(as: renewedFrom) } ?? false
        }
        if isRenewed(record) {
            keepOwed(renewed, base: base, saveError: saveError)
            return
        }
        let vault = self.vault
        enum Kept: Sendable {
            case saved, notHeld
            case refused(AuthError)
        }
        let kept: Kept
        do {
            kept = try await vault.withLock {
                guard let stored = try await vault.load(), stored.tokens.hasSameCredentials(as: base) else { return .notHeld }
                do { try await vault.save(renewed) } catch { return .refused(AuthError.classifying(error)) }
                return .saved
            }
        } catch {
            // Unreadable: only a session a login set aside that they renewed keeps them.
            let classified = AuthError.classifying(error)
            guard record == nil, isRenewed(keptDuringLogin) else {
                logger.error("tokens renewed for a session that has since ended could not be saved", metadata: ["error": "\(classified)"])
                return
            }
            kept = .refused(classified)
        }
        switch kept {
        case .notHeld:
            return
        case .saved:
            // A login set the session aside: if it fails, the session comes back as the
            // vault now holds it, with the rotated tokens, not the spent ones.
            if record == nil, isRenewed(keptDuringLogin) { keptDuringLogin = renewed }
        case .refused(let error):
            // The vault held what they replaced: they are the session's newest tokens, however
            // memory's copy of it was older (another process rotated it meanwhile). Memory
            // keeps them for the store, as when it had started from them.
            guard !unsaved.isPending, record ?? keptDuringLogin != nil else {
                logger.error("tokens renewed for a session that has since ended could not be saved", metadata: ["error": "\(error)"])
                return
            }
            feed(.outlivedKept(renewed, base: nil))
            keepOwed(renewed, base: base, saveError: error)
        }
    }

    /// Memory's session — or the one a login set aside — takes an outlived renewal's
    /// tokens, marked unsaved against `base` (what the store held), and the save retry
    /// runs.
    private func keepOwed(_ renewed: VaultRecord, base: SessionTokens, saveError: AuthError) {
        logger.error(
            "renewed tokens could not be persisted after the session's background work stopped; keeping them in memory to save",
            metadata: ["error": "\(saveError)"])
        unsaved.saveFailed(base: base)
        if record == nil {
            keptDuringLogin = renewed
        } else {
            record = renewed
            plan = provider.renewalPlan(for: renewed.tokens)
        }
        scheduleSaveRetry()
    }
}
