internal import Foundation
public import LatchkeySecrets
public import Logging

/// Many users' sessions in one server process: one ``AuthClient`` per user, loaded
/// from the user's store on first use, validated on use when the provider last
/// confirmed it too long ago, and let go when the least recently used.
///
/// No task runs per user: no heartbeat and no background renewal (a session is renewed
/// by the use that needs a fresh token, once however many uses need it). Each user's
/// client is loaded once however many requests arrive at once, and validated once
/// however many uses find it stale. Beyond ``SessionHostOptions/capacity`` the least
/// recently used idle clients are shut down; renewed tokens their store refused are
/// saved first, and a client whose tokens still cannot be saved stays in memory (the
/// host then holds more than its capacity) until they can.
///
/// ```swift
/// let database = try PostgresSecretDatabase(url: url, options: options)
/// let host = SessionHost(provider: provider) { userID in
///     try database.store(namespace: "myapp." + userID)   // one store, one renewal lock, per user
/// }
/// let response = try await host.send(TransportRequest(url: api), for: userID)
/// ```
///
/// The store factory decides where a user's session lives; give each user a store of
/// their own (a namespace per user), so each renewal lock covers one user. The provider
/// is shared by every user's client. App code (the store factory, the bodies of
/// ``withSession(for:_:)``, stream consumers) never runs on the host's actor.
public actor SessionHost {
    /// The provider every user's client uses.
    public nonisolated let provider: any AuthProvider
    /// The host's options.
    public nonisolated let options: SessionHostOptions
    nonisolated let transport: any HTTPTransport
    nonisolated let clock: any SessionClock
    nonisolated let logger: Logger
    nonisolated let makeStore: @Sendable (String) throws -> any SecretStore

    /// What the host knows of one user's client.
    struct Entry {
        enum Phase {
            /// Being read from the store; every use waits for this one load.
            case loading(id: Int, Task<AuthClient, any Error>)
            case ready(AuthClient)
        }

        var phase: Phase
        /// Uses in progress: a client in use never leaves.
        var uses = 0
        var validation: Validation?
        /// A validation that got no verdict is not tried again before this.
        var retryValidationAt: Date?

        var client: AuthClient? { if case .ready(let client) = phase { client } else { nil } }
    }

    struct Validation {
        let id: Int
        let task: Task<Bool, Never>
    }

    var entries: [String: Entry] = [:]
    var order = HostOrder()
    /// Clients on their way out, by user: a load of that user waits for its end, so the
    /// new client reads what the old one saved.
    var leaving: [String: Task<Void, Never>] = [:]
    /// The host's streams per user, fed by whichever client the user has now.
    var channels: [String: Broadcasters] = [:]
    /// The relay from a user's client to its channel.
    var relays: [String: (client: ObjectIdentifier, task: Task<Void, Never>)] = [:]
    var counter = 0
    var isShutDown = false
    var figures = Statistics()

    /// What the host has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Clients in memory (loading or loaded).
        public var resident = 0
        /// Loads from a store.
        public var loads = 0
        /// Clients shut down to make room.
        public var evictions = 0
        /// Validations started by a use that found its session stale.
        public var validations = 0
        /// Times a client was kept beyond the capacity because its store refused its
        /// renewed tokens.
        public var keptWithUnsavedTokens = 0
    }

    /// Creates a host. Nothing is loaded until a user's first use.
    ///
    /// - Parameters:
    ///   - provider: the adapter every user's client uses.
    ///   - options: capacity, validation age; the session options for each client.
    ///   - transport: sends the app's requests in ``send(_:for:)``.
    ///   - clock: the clock of the host and of every client.
    ///   - logger: receives loads, evictions and failures, never a token or a user ID.
    ///   - store: the store of one user's session, by user ID; called once per load,
    ///     never on the host's actor.
    public init(
        provider: any AuthProvider, options: SessionHostOptions = SessionHostOptions(), transport: (any HTTPTransport)? = nil,
        clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey.host", factory: { _ in SwiftLogNoOpLogHandler() }),
        store: @escaping @Sendable (_ userID: String) throws -> any SecretStore
    ) {
        self.provider = provider
        self.options = options
        self.transport = transport ?? DefaultTransport.make(clock: clock)
        self.clock = clock
        self.logger = logger
        makeStore = store
    }

    /// The host's figures now.
    public var statistics: Statistics {
        var figures = self.figures
        figures.resident = entries.count
        return figures
    }

    // MARK: Using a session

    /// Runs `body` with the user's client: loaded first if it is not in memory, and
    /// validated first when the provider last confirmed it longer ago than
    /// ``SessionHostOptions/validationAge``. The client does not leave while `body` runs;
    /// do not keep it after `body` returns (once it has left, its calls throw
    /// ``AuthError/Code/cancelled``).
    ///
    /// - Throws: the store factory's error; ``AuthError/Code/cancelled`` after
    ///   ``shutdown()``; whatever `body` throws.
    public nonisolated(nonsending) func withSession<R>(for userID: String, _ body: (AuthClient) async throws -> R) async throws -> R {
        let client = try await checkOut(userID)
        do {
            let result = try await body(client)
            await checkIn(userID, client)
            return result
        } catch {
            await checkIn(userID, client)
            throw error
        }
    }

    /// The user's access token, valid for at least `minTTL` (``AuthClient/accessToken(minTTL:scope:audience:)``).
    public nonisolated func accessToken(for userID: String, minTTL: Duration? = nil) async throws -> String {
        try await withSession(for: userID) { try await $0.accessToken(minTTL: minTTL) }
    }

    /// Sends an app request with the user's credentials (``AuthClient/send(_:)``).
    public nonisolated func send(_ request: TransportRequest, for userID: String) async throws -> TransportResponse {
        try await withSession(for: userID) { try await $0.send(request) }
    }

    /// Signs the user in (``AuthClient/login(_:sessionDuration:)``).
    public nonisolated func login(_ credentials: some LoginCredentials, for userID: String) async throws {
        try await withSession(for: userID) { try await $0.login(credentials) }
    }

    /// Signs the user out (``AuthClient/logout(revoke:)``).
    public nonisolated func logout(for userID: String, revoke mode: RevokeMode = .none) async throws {
        try await withSession(for: userID) { try await $0.logout(revoke: mode) }
    }

    /// Whether the user's client is in memory now (loading or loaded).
    public func isResident(_ userID: String) -> Bool { entries[userID] != nil }

    // MARK: Streams

    /// The user's session state, through the host: it goes on across the user's client
    /// leaving and coming back (see ``onChange(of:for:)``).
    public func stateChanges(for userID: String) -> Changes<SessionState> {
        Changes(channel(for: userID).state)
    }

    /// The changes of one object type of the user's session, through the host.
    ///
    /// A subscription yields the user's values while the user's client is in memory,
    /// and nothing while it is not: a client leaving publishes nothing (the session did
    /// not change), and the next load publishes what it restored, so a subscriber sees
    /// a value only when it differs from the last one it saw. Subscribing loads nothing;
    /// before the user's first load it yields nothing. Subscriptions end at
    /// ``shutdown()``. The host keeps the streams of every user ever subscribed to
    /// (a few hundred bytes each).
    public func onChange<Object: SessionObject>(of type: Object.Type, for userID: String) -> Changes<ObjectInfo<Object>> {
        Changes(channel(for: userID).broadcaster(for: type))
    }

    // MARK: Shutdown

    /// Shuts every client down (each saves renewed tokens its store refused first, a few
    /// tries), waits for those leaving, and ends every stream. Later uses throw
    /// ``AuthError/Code/cancelled``.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        let phases = entries.values.map(\.phase)
        let leavingNow = Array(leaving.values)
        entries = [:]
        order = HostOrder()
        await withTaskGroup(of: Void.self) { group in
            for phase in phases {
                switch phase {
                case .ready(let client): group.addTask { await client.shutdown() }
                case .loading(_, let task): group.addTask { await (try? await task.value)?.shutdown() }
                }
            }
            for task in leavingNow { group.addTask { await task.value } }
        }
        for relay in relays.values { await relay.task.value }
        relays = [:]
        for channel in channels.values { channel.finish() }
    }
}
