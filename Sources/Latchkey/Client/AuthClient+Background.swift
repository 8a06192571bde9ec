internal import Foundation

extension AuthClient {
    // MARK: - Validation (start and heartbeat)

    /// Validates the session with the provider without extending it — or, when the
    /// access token has already expired, renews it (a renewal validates too). A
    /// ``AuthError/Code/renewAndRecheck`` answer renews once and checks again; a second
    /// one is unrecoverable, or transient when the refusal says it does not end the session
    /// (``AuthError/repeatedRefusalEndsSession``).
    ///
    /// A refusal counts only against the token it refused. When a renewal replaced that
    /// token while the check was on the wire (a slow answer, a retried request), the
    /// refusal says nothing about the newer token, which has never been checked — and
    /// "renewing" would hand back that same unchecked token, so its first refusal would
    /// end the session without any renewal after it. The newer token is checked in turn,
    /// from the start (a few times at most; then the check is transient, the session is
    /// kept and checked again later).
    ///
    /// `check` is the check's claim on the session (``CheckTicket``): its answer applies
    /// while the state machine still waits for it, and a locked section that finds the
    /// session gone tells the machine with it.
    func checkSession(_ current: VaultRecord, check: CheckTicket, staleRefusals: Int = 0) async throws {
        if isExpired {
            _ = try await renewShared(RenewalRequest(reason: .expiring))
            return
        }
        do {
            try await self.check(current, check: check)
        } catch let error as AuthError where error.code == .renewAndRecheck {
            try stillChecking(check)
            if let newer = try replacement(of: current, refusal: error, staleRefusals: staleRefusals) {
                try await checkSession(newer, check: check, staleRefusals: staleRefusals + 1)
                return
            }
            logger.notice("the provider refused the access token; renewing once and checking again", metadata: ["error": "\(error)"])
            _ = try await renewShared(RenewalRequest(reason: .rejected), replacing: current.tokens.accessToken)
            guard let renewed = record else { throw notSignedInError() }
            do {
                try await self.check(renewed, check: check)
            } catch let again as AuthError where again.code == .renewAndRecheck {
                if let newer = try replacement(of: renewed, refusal: again, staleRefusals: staleRefusals) {
                    try await checkSession(newer, check: check, staleRefusals: staleRefusals + 1)
                    return
                }
                guard again.repeatedRefusalEndsSession else {
                    logger.warning(
                        "the provider refused the renewed access token too, where a refusal does not end the session; keeping it and checking again later"
                    )
                    throw AuthError(
                        .transient, "the provider refused the renewed access token too: \(again.message)",
                        providerCode: again.providerCode, httpStatus: again.httpStatus, underlying: again)
                }
                throw AuthError(
                    .unrecoverable, "the provider refused the session again after it was renewed: \(again.message)",
                    providerCode: again.providerCode, httpStatus: again.httpStatus, underlying: again)
            }
        }
    }

    /// How many refusals of already-replaced tokens one check follows up.
    static let staleRefusalLimit = 2

    /// A check whose answer came back after the session's background work stopped (a
    /// shutdown, a logout, a login, a step the user must take) renews nothing: a shut-down
    /// client's renewal would rotate a refresh token no one saves — the next start would
    /// present the spent one.
    private func stillChecking(_ check: CheckTicket) throws(AuthError) {
        if applies(check), lifecycle == .running { return }
        logger.notice("the session's background work stopped while it was being checked; not renewing")
        throw AuthError(.cancelled, "the session changed while it was being checked")
    }

    /// The session's record when a renewal has replaced `checked`'s token since its check
    /// began; `nil` when the refusal is of the current token.
    ///
    /// - Throws: `notLoggedIn` when the session is gone; ``AuthError/Code/transient`` when
    ///   the tokens kept changing under ``staleRefusalLimit`` checks.
    private func replacement(of checked: VaultRecord, refusal: AuthError, staleRefusals: Int) throws(AuthError) -> VaultRecord? {
        guard let latest = record else { throw notSignedInError() }
        guard !latest.tokens.hasSameCredentials(as: checked.tokens) else { return nil }
        guard staleRefusals < Self.staleRefusalLimit else {
            throw AuthError(
                .transient, "the access token kept changing while it was being checked; checking again later",
                providerCode: refusal.providerCode, httpStatus: refusal.httpStatus, underlying: refusal)
        }
        logger.info("the provider refused an access token a renewal had already replaced; checking the current one")
        return latest
    }

    /// One validation, persisted — unless the session's background work stopped while it
    /// was on the wire (a shutdown, a logout, a login): its answer is then dropped.
    private func check(_ record: VaultRecord, check: CheckTicket) async throws {
        let report = try await validate(record)
        try await commitValidation(report, basedOn: record.tokens, check: check)
    }

    private func validate(_ record: VaultRecord) async throws(AuthError) -> AuthenticatedSession {
        do { return try await provider.validate(record.authenticated) } catch {
            throw provider.classify(error)
        }
    }

    /// Persists a validation report under the lock. Its tokens are taken only when the
    /// stored ones are still those that were validated; otherwise a renewal happened in
    /// the meantime and its tokens win.
    private func commitValidation(_ report: AuthenticatedSession, basedOn tokens: SessionTokens, check: CheckTicket) async throws {
        guard applies(check) else { throw AuthError(.cancelled, "the session changed while it was being validated") }
        let (vault, now) = (self.vault, clock.now)
        let (outcome, memory): (LockedOutcome, MemorySnapshot) = try await vault.withLock {
            // Memory as it is now, not before waiting for the lock: a renewal may have
            // replaced the record meanwhile (see `lockedBase`).
            let memory = await self.memorySnapshot()
            guard memory.allows(check) else {
                throw AuthError(.cancelled, "the session changed while it was being validated")
            }
            // An unreadable vault (with a refresh token at stake): the check is not
            // persisted; the next one will be.
            let base: VaultRecord?
            do { base = try await Self.lockedBase(memory, vault: vault) } catch { return (.unchanged, memory) }
            guard let stored = base else { return (.loggedOut, memory) }
            let merged = stored.merging(report, validatedAt: now, tokens: stored.tokens.hasSameCredentials(as: tokens))
            do { try await vault.save(merged) } catch {
                return (.unsaved(merged, base: stored.tokens, AuthError.classifying(error)), memory)
            }
            return (.saved(merged), memory)
        }
        guard applies(check) else { throw AuthError(.cancelled, "the session changed while it was being validated") }
        // A renewal that ran after the lock was released holds newer tokens than the
        // validated record: the validation is stale, and adopting it would bring the old
        // tokens back.
        if let saved = memory.record, let current = record, !current.tokens.hasSameCredentials(as: saved.tokens) { return }
        switch outcome {
        case .unchanged: return
        case .loggedOut:
            // Said like its siblings (a renewal's, a flush's): soak seed 178 lost a session
            // this way with nothing logged. The machine hears it as the check's answer:
            // untold, it went on publishing `established` for a session memory had dropped.
            logger.notice("the stored session was removed by another process; signing out")
            feedCheckAnswered(check.id, .failed(.ended(.signedOutElsewhere)))
            await endSession(AuthError(.notLoggedIn, "signed out in another process"), clear: false)
            throw notSignedInError()
        case .saved(let record), .adopted(let record):
            if memory.unsaved != nil { unsaved.clear() }
            feedRenewedElsewhere(record)
            adopt(record)
        case .unsaved(let record, let base, let error):
            logger.error("validated session could not be persisted", metadata: ["error": "\(error)"])
            // Owed to the vault: only tokens the report brought. Tokens taken from it
            // (another process's) are there; marked unsaved, a save retry would write them
            // back over that process's next rotation.
            if memory.unsaved != nil, !(memory.record?.tokens.hasSameCredentials(as: base) ?? false) { unsaved.clear() }
            if !record.tokens.hasSameCredentials(as: base) {
                unsaved.saveFailed(base: base)
                scheduleSaveRetry()
            }
            feedRenewedElsewhere(record)
            adopt(record)
        }
    }

    private func runHeartbeat(generation: Int) async {
        var schedule = HeartbeatSchedule(interval: options.heartbeatInterval)
        var delay: Duration? = revalidationPending ? schedule.next() : options.heartbeatInterval
        while let wait = delay {
            do { try await clock.sleep(for: wait) } catch { return }
            switch await beat(generation: generation) {
            case .valid:
                schedule.reset()
                delay = options.heartbeatInterval
            case .kept(let error):
                delay = schedule.next(retryAfter: error.retryAfter)
            case .over:
                return
            }
        }
    }

    /// What one beat found.
    enum BeatOutcome: Sendable {
        /// The provider confirmed the session (or there was none to check: nothing to retry).
        case valid
        /// The check failed without a verdict on the session (network, 5xx, 429): it stays.
        case kept(AuthError)
        /// The session ended or needs the user, or the generation moved on: stop beating.
        case over
    }

    /// One beat of the heartbeat, also a hosted session's validation: saves what a failed
    /// save left unsaved, then asks the provider whether the session still stands. Only
    /// the provider's verdict ends it; a failed check keeps it.
    func beat(generation: Int) async -> BeatOutcome {
        guard generation == self.generation, lifecycle == .running else { return .over }
        if unsaved.isPending { await flushUnsaved() }
        guard generation == self.generation, let record, isSignedIn else { return .over }
        let check = CheckTicket(id: Self.coreID(in: feed(.heartbeatFired), .check), generation: generation)
        do {
            try await checkSession(record, check: check)
            guard applies(check) else { return .over }
            if revalidationPending { logger.info("stored session revalidated") }
            revalidationPending = false
            feedCheckAnswered(check.id, .valid)
            return .valid
        } catch let error as AuthError where error.endsSession {
            guard applies(check) else { return .over }
            logger.notice("session rejected by the provider", metadata: ["error": "\(error)"])
            feedCheckAnswered(check.id, .failed(Self.coreFailure(error)))
            await endSession(error)
            return .over
        } catch let error as AuthError where error.code == .needsUserAction {
            guard applies(check) else { return .over }
            feedCheckAnswered(check.id, .failed(Self.coreFailure(error)))
            requireUserAction(error)
            return .over
        } catch {
            guard applies(check) else { return .over }
            let classified = provider.classify(error)
            logger.notice("session check failed; keeping the session", metadata: ["error": "\(classified)"])
            feedCheckAnswered(check.id, .failed(.transient))
            return .kept(classified)
        }
    }

    // MARK: - Background work

    /// Starts the session's heartbeat and timers. `endingEarlierWork`: what began under the
    /// previous generation is over (a login, a replacement, a failed login's return to the
    /// kept session). At restore nothing came before but what the stored session itself
    /// began while it was checked — an app's renewal — and that goes on.
    func startBackgroundWork(endingEarlierWork: Bool = true) {
        if endingEarlierWork { stopBackgroundWork() } else { timers.stopSessionTimers() }
        let generation = self.generation
        if options.heartbeatInterval != nil || revalidationPending {
            timers.setHeartbeat(Task { await self.runHeartbeat(generation: generation) })
        }
        scheduleTimers()
    }

    func stopBackgroundWork() {
        generation += 1
        timers.stopSessionTimers()
    }

    /// The renewal timer (at the plan's renewal time, when renewing proactively) and
    /// the expiry timer (at the plan's expiry: `established → tokenExpired`, published,
    /// even when nobody asks for a token).
    func scheduleTimers() {
        timers.setRenewal(nil)
        timers.setExpiry(nil)
        guard record != nil, machine.isSignedIn || machine.state == nil else { return }
        if options.renewsProactively, let renewAt = plan.renewAt { startRenewalTimer(at: renewAt) }
        if options.armsExpiryTimer, let expiresAt = plan.expiresAt, expiresAt > clock.now {
            let (generation, clock) = (self.generation, self.clock)
            timers.setExpiry(
                Task {
                    do { try await clock.sleep(until: expiresAt) } catch { return }
                    self.expiryTimerFired(generation: generation)
                })
        }
    }

    private func expiryTimerFired(generation: Int) {
        guard generation == self.generation else { return }
        markExpiredIfDue()
    }

    func startRenewalTimer(at deadline: Date) {
        let (generation, clock) = (self.generation, self.clock)
        timers.setRenewal(
            Task {
                do { try await clock.sleep(until: deadline) } catch { return }
                await self.renewInBackground(generation: generation)
            })
    }

    private func renewInBackground(generation: Int) async {
        guard generation == self.generation, record != nil, isSignedIn else { return }
        _ = try? await renewShared(RenewalRequest(reason: .expiring))
    }

    /// A pending login step (no session behind it) ends when its continuation expires.
    func startActionTimer(_ action: UserAction, expiresAt: Date) {
        let (generation, clock) = (self.generation, self.clock)
        timers.setAction(
            Task {
                do { try await clock.sleep(until: expiresAt) } catch { return }
                self.actionExpired(action, generation: generation)
            })
    }

    private func actionExpired(_ action: UserAction, generation: Int) {
        guard generation == self.generation, machine.state == .needsUserAction(action), record == nil else { return }
        logger.notice("the pending login step expired", metadata: ["action": "\(action.kind)"])
        feed(.actionExpired)
        move(to: .notLoggedIn)
        publish()
    }
}
