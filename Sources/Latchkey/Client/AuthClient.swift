public import Foundation
public import LatchkeySecrets
public import Logging

/// Keeps one user signed in through one provider: restores the stored session at
/// start, validates it, runs the heartbeat, renews the access token exactly once however
/// many callers need it, and publishes every change.
///
/// An actor: every method is safe to call from any task. Reading the cached objects
/// (``currentUser`` and friends) and subscribing to changes are synchronous and do not
/// wait for the actor. App code — stream consumers, a provider's handlers — never runs
/// under a lock of the client's, and may call back into it.
///
/// ```swift
/// let client = AuthClient(provider: provider, store: store)
/// try await client.start()
/// if client.state == .notLoggedIn { try await client.login(credentials) }
/// let response = try await client.send(TransportRequest(url: api))
/// ```
///
/// The implementation is split by concern: `AuthClient+Start` (restore),
/// `AuthClient+Login` (login, update, logout), `AuthClient+Requests` (`accessToken`,
/// `renew`, `send`), `AuthClient+Renewal` (single-flight renewal), `AuthClient+Unsaved`
/// (tokens the vault does not hold yet), `AuthClient+Background` (heartbeat and timers),
/// `AuthClient+State` (transitions and publishing).
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

    /// Where the client itself stands (not the session: that is ``SessionState``).
    enum Lifecycle: Sendable, Equatable {
        /// Created; ``start()`` not called yet.
        case idle
        /// Started: restoring, serving, renewing.
        case running
        /// ``shutdown()`` was called; every call throws `cancelled`.
        case shutDown
    }

    var lifecycle = Lifecycle.idle
    var machine = SessionStateMachine()
    var record: VaultRecord?
    var plan = RenewalPlan.none
    /// Bumped whenever the session is replaced or ended; work that started under an
    /// older generation must not apply its result.
    var generation = 0
    /// The renewals in flight, of every generation.
    var renewals = RenewalBook()
    /// The heartbeat, renewal, expiry and login-step timers, and the store retries.
    var timers = SessionTimers()
    var establishingTask: Task<AuthenticatedSession, any Error>?
    var revalidationPending = false
    /// The in-memory record holds tokens the vault does not (a save failed): retried on a
    /// timer (``scheduleSaveRetry()``), before the next renewal, on the next call and on
    /// every heartbeat.
    var unsaved = UnsavedTokens()
    /// The tokens of an ended session the store still holds (removing it failed):
    /// removed by retries with back-off and by ``shutdown()``, unless a new session
    /// replaced it first.
    var uncleared: SessionTokens?
    /// The session a login from a signed-in state set aside (memory's record is `nil` while
    /// establishing): it comes back if the login fails, and until then its unsaved tokens
    /// are still owed to the store — a shutdown during the login saves them.
    var keptDuringLogin: VaultRecord?
    var lastRestoreError: AuthError?
    var lastStoredSessionConflict: AuthError?
    /// The access token of a renewal that came back shorter-lived than a caller's minTTL.
    var tooShortLived: String?
    var lastEndError: AuthError?
    /// The transition function fed every event the actor takes; its state is the one
    /// published (`AuthClient+Core`).
    var core = Core()
    /// What the machine last published: the app's view while the machine has none of its
    /// own (reading the store again after `restoring`, checking what it read).
    var corePublished: SessionState?
    /// The last event the machine took, for a disagreement's report (which names its case
    /// only: it is described then, not at every event).
    var coreLastEvent: Core.Event?

    /// Creates a client. Nothing happens until ``start(validating:)``.
    ///
    /// ``ProviderRegistry/makeClient(_:store:dependencies:transport:clock:logger:)``
    /// builds one from a configuration; this is the initializer it calls.
    ///
    /// - Parameters:
    ///   - provider: the adapter; the vault refuses a record another provider wrote.
    ///   - store: where the session is persisted (one record, ``SessionOptions/vaultEntryName``).
    ///   - options: heartbeat, session duration, renewal and token-TTL settings.
    ///   - transport: sends the app's requests in ``send(_:)``; adapters have their own.
    ///   - clock: inject a ``ManualClock`` to drive heartbeats and renewals in tests.
    ///   - logger: receives state changes and failures, never a token. Silent by default.
    public init(
        provider: any AuthProvider, store: any SecretStore, options: SessionOptions = SessionOptions(),
        transport: (any HTTPTransport)? = nil, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.provider = provider
        self.store = store
        self.options = options
        self.transport = transport ?? DefaultTransport.make(clock: clock)
        self.clock = clock
        self.logger = logger
        vault = SessionVault(store: store, entryName: options.vaultEntryName, providerID: provider.endpoint.encoded)
    }

    // MARK: Reading the session

    /// The current state; `notLoggedIn` before ``start(validating:)``.
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
    /// Changes of the consumer session (Stytch's `onSessionChange`).
    public nonisolated var sessionChanges: Changes<ObjectInfo<Session>> { Changes(broadcasters.session) }
    /// Changes of the user (Stytch's `onUserChange` / `onAuthChange`).
    public nonisolated var userChanges: Changes<ObjectInfo<User>> { Changes(broadcasters.user) }
    /// Changes of the B2B member session.
    public nonisolated var memberSessionChanges: Changes<ObjectInfo<MemberSession>> { Changes(broadcasters.memberSession) }
    /// Changes of the B2B member.
    public nonisolated var memberChanges: Changes<ObjectInfo<Member>> { Changes(broadcasters.member) }
    /// Changes of the B2B organization.
    public nonisolated var organizationChanges: Changes<ObjectInfo<Organization>> { Changes(broadcasters.organization) }

    /// The unified change stream of one object type — where a Stytch user looks for
    /// `onSessionChange`, `onUserChange` or `onAuthChange`:
    /// `client.onChange(of: User.self)` is the same stream as ``userChanges``.
    public nonisolated func onChange<Object: SessionObject>(of type: Object.Type) -> Changes<ObjectInfo<Object>> {
        Changes(broadcasters.broadcaster(for: type))
    }

    /// What the user must do before the session can go on (an MFA step, a B2B
    /// intermediate session), while the state is ``SessionState/needsUserAction(_:)``.
    public nonisolated var pendingUserAction: UserAction? {
        if case .needsUserAction(let action) = state { action } else { nil }
    }

    /// When the provider last confirmed the session.
    public var lastValidatedAt: Date? { record?.lastValidatedAt }

    /// When the current access token expires (its lifetime counted from its local
    /// receipt); `nil` when nobody is signed in or the provider gave no lifetime.
    public var accessTokenExpiresAt: Date? { record?.tokens.expiresAt }

    /// Whether a restored session is published but not yet revalidated, because the
    /// provider could not be reached; the client keeps retrying with back-off.
    public var isRevalidationPending: Bool { revalidationPending }

    /// Why the stored session could not be read, while the state is
    /// ``SessionState/restoring``; `nil` otherwise.
    public var restoreError: AuthError? { lastRestoreError }

    /// Why a session found in the store at start was left unused and untouched — made
    /// with another endpoint (see ``EndpointIdentity``), another provider, or a newer
    /// format — so the client started `notLoggedIn`; `nil` when none was refused.
    public var storedSessionConflict: AuthError? { lastStoredSessionConflict }

    /// The provider's answer that ended the last session (a ban found at restore, an
    /// unrecoverable renewal), for the app to show; `nil` after a logout or login.
    public var endError: AuthError? { lastEndError }

    /// Whether renewed tokens are held in memory only, because the store refused them;
    /// the client keeps trying to save them.
    public var hasUnsavedTokens: Bool { unsaved.isPending }

    // MARK: Shutdown

    /// Stops the heartbeat and background renewal, waits for renewals on the wire, saves
    /// renewed tokens a failed save left in memory only (a few tries: the next start must
    /// not present a spent refresh token), removes an ended session a failed removal left
    /// in the store (a few tries: it must not come back at the next start), and finishes
    /// every stream. A live stored session stays for the next start. Later calls throw
    /// ``AuthError/Code/cancelled``; a check or app request still on the wire renews
    /// nothing and writes nothing once it answers.
    public func shutdown() async {
        guard lifecycle != .shutDown else { return }
        lifecycle = .shutDown
        feed(.shutdown)
        // A renewal on the wire may rotate the refresh token: its answer is awaited (and
        // kept, when its save fails) before the stored session is left for the next start.
        let inFlight = renewals.onTheWire
        stopBackgroundWork()
        timers.setRestoreRetry(nil)
        timers.setSaveRetry(nil)
        establishingTask?.cancel()
        for renewal in inFlight { _ = try? await renewal.value }
        for _ in 0..<Self.shutdownSaveAttempts where unsaved.isPending { await flushUnsaved() }
        if unsaved.isPending {
            logger.error("renewed tokens could not be saved before shutdown; the next start reads the older ones")
        }
        timers.setRemovalRetry(nil)
        for _ in 0..<Self.shutdownSaveAttempts where uncleared != nil { await removeUncleared() }
        if uncleared != nil {
            logger.error("the ended session could not be removed before shutdown; the next start finds it and asks the provider")
        }
        broadcasters.finish()
    }

    /// How many times ``shutdown()`` tries to save unsaved tokens.
    static let shutdownSaveAttempts = 3

    func checkNotShutDown() throws(AuthError) {
        if lifecycle == .shutDown { throw AuthError(.cancelled, "the client has shut down") }
    }
}

/// Marks the tasks running a renewal's app-code phase, so that app code calling back
/// into the client gets the current token instead of waiting for the renewal it is
/// part of (which would never finish).
enum RenewalScope {
    @TaskLocal static var preparing: Set<ObjectIdentifier> = []
}
