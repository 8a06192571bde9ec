public import Foundation
public import Logging
public import LatchkeySecrets

/// Keeps one user signed in through one provider: restores the stored session at
/// start, validates it, runs the heartbeat, renews the access token exactly once however
/// many callers need it, and publishes every change.
///
/// An actor: every method is safe to call from any task. Reading the cached objects
/// (``currentUser`` and friends) and subscribing to changes are synchronous and do not
/// wait for the actor.
///
/// ```swift
/// let client = AuthClient(provider: provider, store: store)
/// try await client.start()
/// if client.state == .notLoggedIn { try await client.login(credentials) }
/// let response = try await client.send(HTTPRequest(url: api))
/// ```
public actor AuthClient {
    /// The provider adapter.
    public nonisolated let provider: any AuthProvider
    /// The store the session is persisted in.
    public nonisolated let store: any SecretStore
    /// The session options.
    public nonisolated let options: SessionOptions
    /// The transport ``send(_:)`` uses for the app's requests.
    public nonisolated let transport: any HTTPTransport
    /// The clock.
    public nonisolated let clock: any SessionClock

    nonisolated let logger: Logger
    nonisolated let vault: SessionVault
    nonisolated let broadcasters = Broadcasters()

    private var machine = SessionStateMachine()
    private var record: VaultRecord?
    private var plan = RenewalPlan(expiresAt: nil, renewAt: nil)
    /// Bumped whenever the session is replaced or ended; work that started under an
    /// older generation must not apply its result.
    private var generation = 0
    private var renewalTask: Task<SessionTokens, any Error>?
    private var heartbeatTask: Task<Void, Never>?
    private var renewalTimer: Task<Void, Never>?
    private var renewalBackoff = Backoff()
    private var revalidationPending = false
    private var started = false
    private var isShutDown = false

    /// Creates a client. Nothing happens until ``start()``.
    ///
    /// - Parameters:
    ///   - transport: sends the app's requests in ``send(_:)``; adapters have their own.
    ///   - clock: inject a ``ManualClock`` to drive heartbeats and renewals in tests.
    ///   - logger: receives state changes and failures, never a token. Silent by default.
    public init(provider: any AuthProvider, store: any SecretStore, options: SessionOptions = SessionOptions(),
                transport: any HTTPTransport = RetryingTransport(URLSessionTransport()), clock: any SessionClock = SystemClock(),
                logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.provider = provider
        self.store = store
        self.options = options
        self.transport = transport
        self.clock = clock
        self.logger = logger
        vault = SessionVault(store: store, entryName: options.vaultEntryName, providerID: provider.identifier)
    }

    // MARK: Reading the session

    /// The current state; `notLoggedIn` before ``start()``.
    public nonisolated var state: SessionState { broadcasters.state.current ?? .notLoggedIn }
    /// The consumer session, when signed in and the provider has one.
    public nonisolated var currentSession: Session? { broadcasters.session.current?.value }
    /// The signed-in user, when the provider reports one.
    public nonisolated var currentUser: User? { broadcasters.user.current?.value }
    /// The B2B member session, when the provider has one.
    public nonisolated var currentMemberSession: MemberSession? { broadcasters.memberSession.current?.value }
    /// The B2B member, when the provider has one.
    public nonisolated var currentMember: Member? { broadcasters.member.current?.value }
    /// The B2B organization, when the provider has one.
    public nonisolated var currentOrganization: Organization? { broadcasters.organization.current?.value }

    /// Changes of ``state``.
    public nonisolated var stateChanges: Changes<SessionState> { Changes(broadcasters.state) }
    /// Changes of the consumer session.
    public nonisolated var sessionChanges: Changes<ObjectInfo<Session>> { Changes(broadcasters.session) }
    /// Changes of the user.
    public nonisolated var userChanges: Changes<ObjectInfo<User>> { Changes(broadcasters.user) }
    /// Changes of the B2B member session.
    public nonisolated var memberSessionChanges: Changes<ObjectInfo<MemberSession>> { Changes(broadcasters.memberSession) }
    /// Changes of the B2B member.
    public nonisolated var memberChanges: Changes<ObjectInfo<Member>> { Changes(broadcasters.member) }
    /// Changes of the B2B organization.
    public nonisolated var organizationChanges: Changes<ObjectInfo<Organization>> { Changes(broadcasters.organization) }

    /// When the provider last confirmed the session.
    public var lastValidatedAt: Date? { record?.lastValidatedAt }

    /// Whether a restored session is published but not yet revalidated, because the
    /// provider could not be reached; the client keeps retrying with back-off.
    public var isRevalidationPending: Bool { revalidationPending }

    // MARK: Start

    /// Loads the stored session, validates it with the provider, and publishes the result.
    ///
    /// A session the provider definitively rejects is cleared (`notLoggedIn`). When the
    /// provider cannot be reached the stored session is kept and published as not yet
    /// revalidated (``isRevalidationPending``), and validation is retried with back-off.
    /// A stored record of another provider or a newer format is left untouched and the
    /// client starts `notLoggedIn`. Calling `start()` again does nothing.
    ///
    /// - Throws: ``AuthError/Code/storage`` when the store cannot be read (the client is
    ///   then `notLoggedIn`).
    public func start() async throws {
        guard !started else { return }
        try checkNotShutDown()
        started = true
        let stored: VaultRecord?
        do {
            stored = try await vault.load()
        } catch where error.code == .vaultIncompatible {
            logger.warning("stored session not used", metadata: ["reason": "\(error.message)"])
            stored = nil
        } catch {
            logger.error("cannot read the stored session", metadata: ["error": "\(error)"])
            move(to: .notLoggedIn)
            publish()
            throw error
        }
        guard let stored else {
            move(to: .notLoggedIn)
            publish()
            return
        }
        adopt(stored, publishing: false)
        let generation = self.generation
        do {
            try await checkSession(stored.tokens)
            guard generation == self.generation else { return }
            revalidationPending = false
        } catch let error as AuthError where error.endsSession {
            logger.notice("stored session rejected by the provider", metadata: ["error": "\(error)"])
            guard generation == self.generation else { return }
            await endSession(error, fromStart: true)
            return
        } catch {
            guard generation == self.generation else { return }
            logger.notice("stored session kept without revalidation", metadata: ["error": "\(error)"])
            revalidationPending = true
        }
        if machine.state == nil { move(to: .established) }
        publish()
        startBackgroundWork()
    }

    // MARK: Login, update, logout

    /// Logs in with adapter-specific credentials: `notLoggedIn → establishing →
    /// established`; the session is persisted before this returns.
    ///
    /// - Parameter sessionDuration: the session's length for providers that extend
    ///   sessions (5 minutes … 366 days, checked before any request); default
    ///   ``SessionOptions/sessionDuration``. Ignored by other providers.
    /// - Throws: ``AuthError``: `invalidState` when already signed in or terminated (log
    ///   out first), `invalidArgument` for a duration out of range, the provider's
    ///   classified failure (the state returns to `notLoggedIn`), or `storage`.
    public func login(_ credentials: some LoginCredentials, sessionDuration: Duration? = nil) async throws {
        try checkNotShutDown()
        if !started { try await start() }
        let duration = try resolveDuration(sessionDuration)
        try checkCanEstablish(action: "log in")
        let hadSession = record != nil
        beginEstablishing()
        let generation = self.generation
        do {
            let report = try await provider.login(credentials, sessionDuration: duration)
            try await finishEstablishing(report, generation: generation)
        } catch {
            let classified = provider.classify(error)
            await failEstablishing(classified, generation: generation, clearVault: hadSession)
            throw classified
        }
    }

    /// Starts a session from tokens obtained elsewhere (an app's own login flow): the
    /// provider checks them and reports the session's objects.
    ///
    /// - Throws: ``AuthError``: `invalidArgument` when the tokens are incomplete for the
    ///   provider (both tokens where it has two), `invalidState` when already signed in,
    ///   or the provider's classified failure.
    public func update(tokens: SessionTokens) async throws {
        try checkNotShutDown()
        if !started { try await start() }
        do { try provider.checkTokens(tokens) } catch {
            throw provider.classify(error)
        }
        try checkCanEstablish(action: "update the tokens")
        let hadSession = record != nil
        beginEstablishing()
        let generation = self.generation
        do {
            let report = try await provider.validate(tokens)
            try await finishEstablishing(report, generation: generation)
        } catch {
            let classified = provider.classify(error)
            await failEstablishing(classified, generation: generation, clearVault: hadSession)
            throw classified
        }
    }

    /// Signs out: clears the vault, memory and streams (`notLoggedIn`).
    ///
    /// - Parameter revoke: secure logout — revoke the session at the provider first; if
    ///   that fails, throw and change nothing.
    /// - Throws: the provider's classified failure when `revoke` fails; ``AuthError/Code/storage``
    ///   when the vault cannot be cleared (memory and streams are cleared anyway).
    public func logout(revoke: Bool = false) async throws {
        try checkNotShutDown()
        if revoke, let record, !isTerminated {
            do { try await provider.revoke(record.tokens) } catch {
                let classified = provider.classify(error)
                logger.notice("secure logout refused: revocation failed; nothing changed", metadata: ["error": "\(classified)"])
                throw classified
            }
        }
        stopBackgroundWork()
        record = nil
        plan = RenewalPlan(expiresAt: nil, renewAt: nil)
        revalidationPending = false
        var failure: AuthError?
        do { try await clearVault() } catch { failure = error }
        if let state = machine.state, state != .notLoggedIn { move(to: .notLoggedIn) } else if machine.state == nil { move(to: .notLoggedIn) }
        publish()
        if let failure { throw failure }
    }

    // MARK: Tokens and requests

    /// An access token valid for at least `minTTL`, renewed first if needed. Concurrent
    /// callers share one renewal, in this process and — through the store's lock — in
    /// other processes sharing the store.
    ///
    /// When the provider issues tokens shorter-lived than `minTTL`, the fresh token is
    /// returned anyway.
    ///
    /// - Throws: ``AuthError``: `notLoggedIn`, `terminated`, or the renewal's classified
    ///   failure (transient failures keep the session).
    public func accessToken(minTTL: Duration = .seconds(30)) async throws -> String {
        try await tokens(minTTL: minTTL).accessToken
    }

    /// Renews the access token now, whether or not it is about to expire; with
    /// `sessionDuration`, also extends the session at providers that extend sessions.
    public func renew(sessionDuration: Duration? = nil) async throws {
        try checkNotShutDown()
        let duration = try sessionDuration.map { duration throws(AuthError) -> Duration in
            try SessionOptions.checkDuration(duration)
            return duration
        }
        guard record != nil else { throw notSignedInError() }
        _ = try await renewShared(replacing: nil, sessionDuration: provider.extendsSessions ? duration : nil)
    }

    /// Sends an app request with the session's credentials. On a 401 it renews once (or
    /// reuses a renewal another caller already made) and retries once; a second 401 is
    /// an error, never a loop.
    ///
    /// - Throws: ``AuthError/Code/unauthorized`` on a second 401, ``AuthError`` from the
    ///   renewal, or the transport's error.
    public nonisolated func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let tokens = try await tokens(minTTL: options.minimumTokenTTL)
        var first = request
        try provider.authorize(&first, with: tokens)
        let response = try await transport.send(first)
        guard response.status == 401 else { return response }
        let renewed = try await renewAfterUnauthorized(used: tokens.accessToken)
        var second = request
        try provider.authorize(&second, with: renewed)
        let retried = try await transport.send(second)
        guard retried.status == 401 else { return retried }
        logger.notice("request refused again after renewal", metadata: ["request": "\(request)"])
        throw AuthError(.unauthorized, "\(request) was refused with 401 again after the session was renewed", httpStatus: 401)
    }

    // MARK: Shutdown

    /// Stops the heartbeat and background renewal and finishes every stream. The stored
    /// session stays for the next start. Later calls throw ``AuthError/Code/cancelled``.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        stopBackgroundWork()
        broadcasters.finish()
    }

    // MARK: - Tokens and renewal

    func tokens(minTTL: Duration) async throws -> SessionTokens {
        guard !isShutDown, let record, isSignedIn else { throw notSignedInError() }
        if isValid(record.tokens, for: minTTL.timeInterval) { return record.tokens }
        markExpiredIfDue()
        return try await renewShared(replacing: nil)
    }

    private func renewAfterUnauthorized(used: String) async throws -> SessionTokens {
        try await renewShared(replacing: used)
    }

    private func isValid(_ tokens: SessionTokens, for minTTL: TimeInterval) -> Bool {
        guard let expiresAt = plan.expiresAt else { return true }
        return expiresAt.timeIntervalSince(clock.now) >= minTTL
    }

    private var isExpired: Bool {
        guard let expiresAt = plan.expiresAt else { return false }
        return expiresAt <= clock.now
    }

    /// One renewal for everybody: joins the renewal in flight, returns tokens that
    /// already replaced `used`, or starts a renewal.
    private func renewShared(replacing used: String?, sessionDuration: Duration? = nil) async throws -> SessionTokens {
        if let renewalTask { return try await renewalTask.value }
        guard let current = record, isSignedIn else { throw notSignedInError() }
        if let used, current.tokens.accessToken != used { return current.tokens }
        let task = Task { try await self.performRenewal(of: current.tokens, sessionDuration: sessionDuration) }
        renewalTask = task
        defer { if renewalTask == task { renewalTask = nil } }
        return try await task.value
    }

    private enum LockedOutcome: Sendable {
        case loggedOut
        case adopted(VaultRecord)
        case saved(VaultRecord)
        case unsaved(VaultRecord, AuthError)
    }

    /// Renews under the store's lock: re-reads the vault first (another process may have
    /// renewed already), and persists a renewed record before anyone sees its tokens.
    private func performRenewal(of tokens: SessionTokens, sessionDuration: Duration?) async throws -> SessionTokens {
        let generation = self.generation
        let (provider, vault, clock, fallback) = (self.provider, self.vault, self.clock, self.record)
        let outcome: LockedOutcome
        do {
            outcome = try await vault.withLock {
                let stored: VaultRecord?
                do { stored = try await vault.load() } catch { stored = fallback }
                guard let stored else { return .loggedOut }
                if !stored.tokens.hasSameCredentials(as: tokens) { return .adopted(stored) }
                let report = try await provider.renew(tokens, sessionDuration: sessionDuration)
                let renewed = stored.merging(report, validatedAt: clock.now)
                do { try await vault.save(renewed) } catch { return .unsaved(renewed, AuthError.classifying(error)) }
                return .saved(renewed)
            }
        } catch {
            let classified = provider.classify(error)
            guard generation == self.generation else { throw classified }
            await renewalFailed(classified)
            throw classified
        }
        guard generation == self.generation else {
            throw AuthError(.cancelled, "the session changed while it was being renewed")
        }
        switch outcome {
        case .loggedOut:
            logger.notice("the stored session was removed by another process; signing out")
            await endSession(AuthError(.notLoggedIn, "signed out in another process"), fromStart: false, clear: false)
            throw notSignedInError()
        case .adopted(let stored):
            logger.debug("adopted a session renewed by another process")
            adopt(stored)
            return stored.tokens
        case .saved(let renewed):
            logger.info("access token renewed")
            adopt(renewed)
            return renewed.tokens
        case .unsaved(let renewed, let error):
            logger.error("renewed tokens could not be persisted; keeping them in memory", metadata: ["error": "\(error)"])
            adopt(renewed)
            return renewed.tokens
        }
    }

    private func renewalFailed(_ error: AuthError) async {
        if error.endsSession {
            logger.notice("renewal refused by the provider; ending the session", metadata: ["error": "\(error)"])
            await endSession(error, fromStart: false)
            return
        }
        logger.notice("renewal failed; keeping the session", metadata: ["error": "\(error)"])
        markExpiredIfDue()
        if options.renewsProactively || isExpired {
            startRenewalTimer(at: clock.now.addingTimeInterval(renewalBackoff.next(retryAfter: error.retryAfter).timeInterval))
        }
    }

    private func markExpiredIfDue() {
        if isExpired, machine.state == .established {
            move(to: .tokenExpired)
            publish()
        }
    }

    // MARK: - Validation (start and heartbeat)

    /// Validates the session with the provider without extending it — or, when the
    /// access token has already expired, renews it (a renewal validates too).
    private func checkSession(_ tokens: SessionTokens) async throws {
        if isExpired {
            _ = try await renewShared(replacing: nil)
            return
        }
        let report: AuthenticatedSession
        do { report = try await provider.validate(tokens) } catch {
            throw provider.classify(error)
        }
        try await commitValidation(report, basedOn: tokens)
    }

    /// Persists a validation report under the lock. Its tokens are taken only when the
    /// stored ones are still those that were validated; otherwise a renewal happened in
    /// the meantime and its tokens win.
    private func commitValidation(_ report: AuthenticatedSession, basedOn tokens: SessionTokens) async throws {
        let generation = self.generation
        let (vault, now, fallback) = (self.vault, clock.now, self.record)
        let outcome: LockedOutcome = try await vault.withLock {
            let stored: VaultRecord?
            do { stored = try await vault.load() } catch { stored = fallback }
            guard let stored else { return .loggedOut }
            let merged = stored.merging(report, validatedAt: now, tokens: stored.tokens.hasSameCredentials(as: tokens))
            do { try await vault.save(merged) } catch { return .unsaved(merged, AuthError.classifying(error)) }
            return .saved(merged)
        }
        guard generation == self.generation else { throw AuthError(.cancelled, "the session changed while it was being validated") }
        switch outcome {
        case .loggedOut:
            await endSession(AuthError(.notLoggedIn, "signed out in another process"), fromStart: machine.state == nil, clear: false)
            throw notSignedInError()
        case .saved(let record), .adopted(let record):
            adopt(record)
        case .unsaved(let record, let error):
            logger.error("validated session could not be persisted", metadata: ["error": "\(error)"])
            adopt(record)
        }
    }

    private func runHeartbeat(generation: Int) async {
        var backoff = Backoff()
        var delay: Duration? = revalidationPending ? backoff.next() : options.heartbeatInterval
        while let wait = delay {
            do { try await clock.sleep(for: wait) } catch { return }
            guard generation == self.generation, !isShutDown, let record else { return }
            do {
                try await checkSession(record.tokens)
                guard generation == self.generation else { return }
                if revalidationPending { logger.info("stored session revalidated") }
                revalidationPending = false
                backoff.reset()
                delay = options.heartbeatInterval
            } catch let error as AuthError where error.endsSession {
                guard generation == self.generation else { return }
                logger.notice("heartbeat: session rejected by the provider", metadata: ["error": "\(error)"])
                await endSession(error, fromStart: false)
                return
            } catch {
                guard generation == self.generation else { return }
                let classified = provider.classify(error)
                logger.notice("heartbeat failed; keeping the session", metadata: ["error": "\(classified)"])
                delay = backoff.next(retryAfter: classified.retryAfter)
            }
        }
    }

    // MARK: - Background work

    private func startBackgroundWork() {
        stopBackgroundWork()
        let generation = self.generation
        if options.heartbeatInterval != nil || revalidationPending {
            heartbeatTask = Task { await self.runHeartbeat(generation: generation) }
        }
        scheduleRenewal()
    }

    private func stopBackgroundWork() {
        generation += 1
        heartbeatTask?.cancel()
        heartbeatTask = nil
        renewalTimer?.cancel()
        renewalTimer = nil
        renewalTask = nil
    }

    private func scheduleRenewal() {
        renewalTimer?.cancel()
        renewalTimer = nil
        guard options.renewsProactively, record != nil, isSignedIn, let renewAt = plan.renewAt else { return }
        startRenewalTimer(at: renewAt)
    }

    private func startRenewalTimer(at deadline: Date) {
        renewalTimer?.cancel()
        let (generation, clock) = (self.generation, self.clock)
        renewalTimer = Task {
            do { try await clock.sleep(until: deadline) } catch { return }
            await self.renewInBackground(generation: generation)
        }
    }

    private func renewInBackground(generation: Int) async {
        guard generation == self.generation, record != nil, isSignedIn else { return }
        _ = try? await renewShared(replacing: nil)
    }

    // MARK: - Establishing and ending

    private func checkCanEstablish(action: String) throws(AuthError) {
        switch machine.state {
        case .notLoggedIn?, .tokenExpired?: return
        case .established?: throw AuthError(.invalidState, "cannot \(action): already signed in; log out first")
        case .establishing?: throw AuthError(.invalidState, "cannot \(action): a login is already under way")
        case .terminated(let reason)?: throw AuthError(.invalidState, "cannot \(action): the session was terminated (\(reason)); log out first")
        case nil: throw AuthError(.invalidState, "cannot \(action): the client has not started")
        }
    }

    private func beginEstablishing() {
        stopBackgroundWork()
        record = nil
        plan = RenewalPlan(expiresAt: nil, renewAt: nil)
        revalidationPending = false
        move(to: .establishing)
        publish()
    }

    private func finishEstablishing(_ report: AuthenticatedSession, generation: Int) async throws {
        guard generation == self.generation else { throw AuthError(.cancelled, "the login was overtaken by a logout or another login") }
        let fresh = VaultRecord(provider: provider.identifier, authenticated: report, validatedAt: clock.now)
        let vault = self.vault
        try await vault.withLock { try await vault.save(fresh) }
        guard generation == self.generation else { throw AuthError(.cancelled, "the login was overtaken by a logout or another login") }
        renewalBackoff.reset()
        adopt(fresh, publishing: false)
        move(to: .established)
        publish()
        startBackgroundWork()
    }

    private func failEstablishing(_ error: AuthError, generation: Int, clearVault shouldClear: Bool) async {
        guard generation == self.generation else { return }
        logger.notice("login failed", metadata: ["error": "\(error)"])
        if shouldClear { try? await clearVault() }
        guard generation == self.generation, machine.state == .establishing else { return }
        move(to: .notLoggedIn)
        publish()
    }

    /// Ends the session after the provider rejected it (or another process signed out):
    /// `terminated(reason)` for a termination, `notLoggedIn` otherwise.
    private func endSession(_ error: AuthError, fromStart: Bool, clear: Bool = true) async {
        stopBackgroundWork()
        record = nil
        plan = RenewalPlan(expiresAt: nil, renewAt: nil)
        revalidationPending = false
        if clear {
            do { try await clearVault() } catch {
                logger.error("cannot clear the stored session", metadata: ["error": "\(error)"])
            }
        }
        if error.code == .terminated, let reason = error.terminationReason, !fromStart {
            move(to: .terminated(reason))
        } else {
            move(to: .notLoggedIn)
        }
        publish()
    }

    private func clearVault() async throws(AuthError) {
        let vault = self.vault
        do { try await vault.withLock { try await vault.clear() } } catch {
            throw error as? AuthError ?? AuthError(.storage, "cannot remove the stored session: \(error)", underlying: error)
        }
    }

    // MARK: - State

    /// Takes `record` as the session, recomputing the renewal plan; a fresh token
    /// moves `tokenExpired` back to `established`.
    private func adopt(_ record: VaultRecord, publishing: Bool = true) {
        let tokensChanged = !(self.record?.tokens.hasSameCredentials(as: record.tokens) ?? false)
        self.record = record
        plan = provider.renewalPlan(for: record.tokens)
        if tokensChanged {
            renewalBackoff.reset()
            if machine.state == .tokenExpired, !isExpired { move(to: .established) }
            if machine.state != nil { scheduleRenewal() }
        }
        if publishing { publish() }
    }

    private var isSignedIn: Bool {
        switch machine.state {
        case .established?, .tokenExpired?: true
        case nil: record != nil
        default: false
        }
    }

    private var isTerminated: Bool {
        if case .terminated? = machine.state { true } else { false }
    }

    private func notSignedInError() -> AuthError {
        if isShutDown { return AuthError(.cancelled, "the client has shut down") }
        if case .terminated(let reason)? = machine.state {
            return AuthError.terminated(reason, "the session was terminated by the provider (\(reason))")
        }
        return AuthError(.notLoggedIn, "nobody is signed in")
    }

    private func checkNotShutDown() throws(AuthError) {
        if isShutDown { throw AuthError(.cancelled, "the client has shut down") }
    }

    private func resolveDuration(_ requested: Duration?) throws(AuthError) -> Duration? {
        guard provider.extendsSessions else { return nil }
        let duration = requested ?? options.sessionDuration
        try SessionOptions.checkDuration(duration)
        return duration
    }

    private func move(to next: SessionState) {
        let previous = machine.state
        guard previous != next else { return }
        if machine.transition(to: next) {
            logger.info("session state changed", metadata: ["from": "\(previous.map(String.init(describing:)) ?? "start")", "to": "\(next)"])
        } else {
            logger.error("illegal session state transition refused", metadata: ["from": "\(previous.map(String.init(describing:)) ?? "start")", "to": "\(next)"])
        }
    }

    /// Publishes the objects, then the state, so a subscriber that sees the state
    /// finds the objects already in place.
    private func publish() {
        guard let state = machine.state else { return }
        switch state {
        case .notLoggedIn: broadcasters.publishAll(.notLoggedIn)
        case .terminated(let reason): broadcasters.publishAll(.terminated(reason))
        case .established, .tokenExpired:
            if let record { broadcasters.publish(record) }
        case .establishing: break
        }
        broadcasters.state.publish(state)
    }
}
