internal import Foundation
internal import Tracing

extension AuthClient {
    // MARK: - Tokens and renewal

    /// The app's ``SessionOptions/minimumTokenTTL`` when it set one, else the provider's.
    nonisolated var defaultMinimumTokenTTL: Duration { options.minimumTokenTTL(for: provider) }

    func tokens(minTTL: Duration, scope: String?, audience: String?) async throws -> SessionTokens {
        try checkNotShutDown()
        if RenewalScope.preparing.contains(ObjectIdentifier(self)) { return try tokensInsideRenewal() }
        if unsaved.isPending { await flushUnsaved() }
        guard let record, isSignedIn else { throw notSignedInError() }
        let wanted = minTTL.timeInterval
        let asksOther = scope != nil || audience != nil
        let request = RenewalRequest(reason: asksOther ? .scope : .expiring, scope: scope, audience: audience)
        let satisfied = request.isSatisfied(by: record.tokens)
        if !satisfied, keepsApart(request, from: record.tokens) { return try await tokenSet(for: request, minTTL: wanted) }
        if satisfied, timeLeft(plan) >= wanted { return record.tokens }
        // A token a renewal already gave, too short-lived for this caller: renewing again
        // would give another like it. An error, not a loop.
        if satisfied, record.tokens.accessToken == tooShortLived, let lifetime = Self.lifetime(of: record.tokens), lifetime < wanted {
            throw Self.largeMinTTL(lifetime: lifetime, asked: wanted)
        }
        markExpiredIfDue()
        return try await renewed(for: request, minTTL: wanted)
    }

    /// A renewal for a caller that wants `wanted` seconds: the renewal's tokens, or
    /// `largeMinTTL` when the provider's tokens live less than that. Tokens another
    /// process renewed a while ago, adopted part-way through their life, are renewed once
    /// more (a renewal of our own gives a full lifetime) rather than refused.
    /// Inlined: a frame of its own costs every waiting caller a task-allocator slab (1,000
    /// callers of one expired session: +1,000 mallocs in `Session/expired1000`).
    @inline(__always)
    func renewed(for request: RenewalRequest, minTTL wanted: TimeInterval) async throws -> SessionTokens {
        var renewed = try await renewShared(request)
        var left = timeLeft(provider.renewalPlan(for: renewed))
        if left < wanted, let lifetime = Self.lifetime(of: renewed), lifetime >= wanted {
            renewed = try await renewShared(request)
            left = timeLeft(provider.renewalPlan(for: renewed))
        }
        guard left >= wanted else {
            tooShortLived = renewed.accessToken
            throw Self.largeMinTTL(lifetime: Self.lifetime(of: renewed) ?? left, asked: wanted)
        }
        return renewed
    }

    /// App code called from a renewal's preparation: the current token if it has not
    /// expired. Waiting for the renewal would wait for ourselves.
    private func tokensInsideRenewal() throws -> SessionTokens {
        guard let record, isSignedIn else { throw notSignedInError() }
        guard !isExpired else {
            throw AuthError(.invalidState, "the access token has expired, and a renewal handler cannot wait for the renewal it is part of")
        }
        return record.tokens
    }

    func timeLeft(_ plan: RenewalPlan) -> TimeInterval { plan.timeLeft(at: clock.now) }

    static func lifetime(of tokens: SessionTokens) -> TimeInterval? {
        guard let issuedAt = tokens.issuedAt, let expiresAt = tokens.expiresAt else { return nil }
        return expiresAt.timeIntervalSince(issuedAt)
    }

    static func largeMinTTL(lifetime: TimeInterval, asked: TimeInterval) -> AuthError {
        AuthError(
            .largeMinTTL,
            "the provider issues access tokens valid for \(Self.seconds(lifetime)) s, less than the \(Self.seconds(asked)) s asked (minTTL); renewing again would not help — ask for less, or lengthen the token lifetime at the provider"
        )
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        interval.isFinite ? String(format: "%.0f", interval) : "unlimited"
    }

    /// One renewal per ask: joins a renewal in flight that gives the caller what it
    /// asks, returns tokens that already replaced `used`, or starts a renewal.
    func renewShared(_ request: RenewalRequest, replacing used: String? = nil) async throws -> SessionTokens {
        // A caller that began before the shutdown (an app request's 401, a check on the
        // wire) starts no renewal after it: no one would save what it rotates.
        try checkNotShutDown()
        // Only a renewal of this generation serves callers; older ones stay listed for shutdown.
        if let joinable = renewals.joinable(request, generation: generation) {
            return try await joinable.task.value
        }
        guard let current = record, isSignedIn || isAwaitingRenewalAction else { throw notSignedInError() }
        if let used, current.tokens.accessToken != used { return current.tokens }
        let coreID = feedRenewalStarted(request, from: current)
        let id = renewals.reserveID()
        // The renewal belongs to this generation, not to the one current when its task
        // first runs: a shutdown (or logout, or login) in between ends it unrun.
        let generation = self.generation
        let task = Task { try await self.observedRenewal(request, id: id, generation: generation, coreID: coreID) }
        renewals.started(InFlightRenewal(id: id, generation: generation, request: request, task: task))
        defer { renewals.finished(id) }
        return try await task.value
    }

    enum LockedOutcome: Sendable {
        /// Nothing was read or written (a check whose vault could not be read).
        case unchanged
        case loggedOut
        case adopted(VaultRecord)
        case saved(VaultRecord)
        case unsaved(VaultRecord, base: SessionTokens, AuthError)
    }

    /// ``performRenewal(_:id:)`` in the span `latchkey.renewal`, counted by reason and outcome.
    private func observedRenewal(_ request: RenewalRequest, id: Int, generation: Int, coreID: Int?) async throws -> SessionTokens {
        let start = ContinuousClock.now
        do {
            let tokens = try await Telemetry.traced(Telemetry.Name.renewalSpan, kind: .internal) { span in
                span.attributes["latchkey.renewal.reason"] = request.reason.description
                return try await performRenewal(request, id: id, generation: generation, coreID: coreID)
            }
            Telemetry.renewal(reason: request.reason, outcome: "renewed", elapsed: ContinuousClock.now - start)
            return tokens
        } catch {
            Telemetry.renewal(reason: request.reason, outcome: Telemetry.errorClass(error), elapsed: ContinuousClock.now - start)
            throw error
        }
    }

    /// Renews in two phases: first the provider gathers what it needs from the app,
    /// outside every lock; then, under the store's lock, the vault is re-read (another
    /// process may have renewed already), the provider renews, and the renewed record
    /// is persisted before anyone sees its tokens. A failed save keeps the record marked
    /// unsaved and retried, never forgotten.
    private func performRenewal(_ request: RenewalRequest, id: Int, generation: Int, coreID: Int?) async throws -> SessionTokens {
        // Unlisted before the actor is let go, not when a caller resumes: a failure arms a
        // retry timer, and a retry that fired first would join this finished renewal
        // instead of renewing — and arm no timer after it (a retry lost for good).
        defer { renewals.finished(id) }
        // Asked for before a shutdown that ran before this task did (soak seed 123): the
        // shutdown did not wait for it, and nothing would save what it rotates.
        guard generation == self.generation else {
            feedRenewalAnswered(coreID, .cancelled)
            throw AuthError(.cancelled, "the session changed before it was renewed")
        }
        guard let current = record else {
            feedRenewalAnswered(coreID, .cancelled)
            throw notSignedInError()
        }
        let provider = self.provider
        // For another audience or scope, kept apart: the session's own token is not renewed.
        let apart = keepsApart(request, from: current.tokens)
        let preparation: RenewalPreparation
        do {
            let scope = RenewalScope.preparing.union([ObjectIdentifier(self)])
            preparation = try await RenewalScope.$preparing.withValue(scope) {
                try await provider.prepareRenewal(request, current: current.authenticated)
            }
        } catch {
            let classified = provider.classify(error)
            feedRenewalAnswered(coreID, .failed(Self.coreFailure(classified)))
            guard generation == self.generation else { throw classified }
            await renewalFailed(classified, tokenSetOnly: apart)
            throw classified
        }
        if unsaved.isPending { await flushUnsaved() }
        guard generation == self.generation, record != nil else {
            feedRenewalAnswered(coreID, .cancelled)
            throw AuthError(.cancelled, "the session changed while it was being renewed")
        }
        // From here the provider may rotate the refresh token: shutdown waits for this.
        renewals.beganRenewing(id)
        defer { renewals.endedRenewing(id) }
        let (vault, clock) = (self.vault, self.clock)
        let outcome: LockedOutcome
        do {
            outcome = try await vault.withLock {
                // Memory as it is now, not before waiting for the lock: a check or a save
                // retry may have finished meanwhile, and its record is the one to renew
                // from when the vault cannot be read.
                let memory = await self.memorySnapshot()
                guard memory.generation == generation, let latest = memory.record else {
                    throw AuthError(.cancelled, "the session changed while it was being renewed")
                }
                guard let stored = try await Self.lockedBase(memory, vault: vault) else { return .loggedOut }
                if apart {
                    // Another process got this set meanwhile: adopt it, with the refresh
                    // token it rotated.
                    if let set = stored.tokenSet(serving: request), !Self.hasExpired(set, provider: provider, at: clock.now),
                        !(latest.tokenSet(serving: request)?.hasSameCredentials(as: set) ?? false)
                    {
                        return .adopted(stored)
                    }
                    let report = try await provider.renew(request, current: stored.authenticated, preparation: preparation)
                    let renewed = stored.keepingTokenSet(report, for: request, validatedAt: clock.now)
                    do { try await vault.save(renewed) } catch {
                        return .unsaved(renewed, base: stored.tokens, AuthError.classifying(error))
                    }
                    return .saved(renewed)
                }
                if !stored.tokens.hasSameCredentials(as: latest.tokens), request.sessionDuration == nil,
                    request.isSatisfied(by: stored.tokens), !Self.hasExpired(stored, provider: provider, at: clock.now)
                {
                    return .adopted(stored)
                }
                let report = try await provider.renew(request, current: stored.authenticated, preparation: preparation)
                let renewed = stored.merging(report, validatedAt: clock.now)
                do { try await vault.save(renewed) } catch {
                    return .unsaved(renewed, base: stored.tokens, AuthError.classifying(error))
                }
                return .saved(renewed)
            }
        } catch {
            let classified = provider.classify(error)
            feedRenewalAnswered(coreID, .failed(Self.coreFailure(classified)))
            guard generation == self.generation else { throw classified }
            await renewalFailed(classified, tokenSetOnly: apart)
            throw classified
        }
        feedRenewalAnswered(coreID, Self.coreAnswer(outcome))
        guard generation == self.generation else {
            if case .unsaved(let renewed, let base, let error) = outcome {
                await keepOutlivedRenewal(renewed, base: base, renewedFrom: current.tokens, saveError: error)
            }
            throw AuthError(.cancelled, "the session changed while it was being renewed")
        }
        switch outcome {
        case .unchanged:
            throw AuthError(.storage, "the stored session could not be read; nothing was renewed")
        case .loggedOut:
            logger.notice("the stored session was removed by another process; signing out")
            await endSession(AuthError(.notLoggedIn, "signed out in another process"), clear: false)
            throw notSignedInError()
        case .adopted(let stored):
            logger.debug("adopted a session renewed by another process")
            adopt(stored)
            return Self.served(request, by: stored, apart: apart)
        case .saved(let renewed):
            logger.info("access token renewed", metadata: ["reason": "\(request.reason)"])
            unsaved.clear()
            adopt(renewed)
            return Self.served(request, by: renewed, apart: apart)
        case .unsaved(let renewed, let base, let error):
            logger.error("renewed tokens could not be persisted; keeping them in memory and retrying the save", metadata: ["error": "\(error)"])
            unsaved.saveFailed(base: base)
            adopt(renewed)
            scheduleSaveRetry()
            return Self.served(request, by: renewed, apart: apart)
        }
    }

    private static func hasExpired(_ record: VaultRecord, provider: any AuthProvider, at now: Date) -> Bool {
        hasExpired(record.tokens, provider: provider, at: now)
    }

    static func hasExpired(_ tokens: SessionTokens, provider: any AuthProvider, at now: Date) -> Bool {
        provider.renewalPlan(for: tokens).timeLeft(at: now) <= 0
    }

    /// A failed renewal: the session ends, waits for the user, or is kept and renewed
    /// again later — except after a renewal of a token set only (`tokenSetOnly`), whose
    /// caller got the error and whose failure says nothing of the session's own token.
    func renewalFailed(_ error: AuthError, tokenSetOnly: Bool = false) async {
        if error.endsSession {
            logger.notice("renewal refused by the provider; ending the session", metadata: ["error": "\(error)"])
            await endSession(error)
            return
        }
        if error.code == .needsUserAction {
            requireUserAction(error)
            return
        }
        if tokenSetOnly {
            logger.notice("a token for another audience or scope could not be renewed; the session is kept", metadata: ["error": "\(error)"])
            return
        }
        logger.notice("renewal failed; keeping the session", metadata: ["error": "\(error)"])
        markExpiredIfDue()
        if options.renewsProactively || isExpired {
            startRenewalTimer(at: clock.now.addingTimeInterval(renewals.backoff.next(retryAfter: error.retryAfter).timeInterval))
        }
    }
}
