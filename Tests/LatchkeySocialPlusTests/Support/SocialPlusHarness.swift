import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import LatchkeySecrets
import LatchkeySocialPlus
// Every file of the suite uses the shared support (logs, settle, errors).
@_exported import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import Logging
import Synchronization
import Testing

/// An emulated social.plus network on loopback, and a client talking to it over real
/// HTTP, on a manual clock that moves together with the emulator's.
struct SocialPlusHarness {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    let emulator: Emulator
    let endpoint: SocialPlusEndpoint
    let clock: ManualClock
    let store: MemorySecretStore
    let logs: LogCapture
    let transport: RecordingTransport
    let options: SessionOptions
    /// Retries of idempotent requests on the manual clock (`RetryingTransport`), as an app's
    /// default transport does; `nil`: every request is sent once.
    let retries: RetryPolicy?
    let client: AuthClient

    /// The routes of the emulated API.
    static let loginRoute = EmulatorRoute(.socialPlus, "POST", "/api/v5/sessions")
    static let logoutRoute = EmulatorRoute(.socialPlus, "DELETE", "/api/v4/sessions")
    static let userRoute = EmulatorRoute(.socialPlus, "GET", "/api/v3/users/{userId}")

    var provider: SocialPlusProvider {
        get throws { try #require(client.provider as? SocialPlusProvider) }
    }

    /// The transport timeout for a test that injects `fault`: short where the fault is
    /// seen only by timing out — a delayed answer (``slowAnswer``), and a dropped
    /// connection, which FoundationNetworking does not report: the request waits out its
    /// timeout (measured: no answer and no error within 30 s) — and long for every other
    /// fault, so that the test's other requests never time out on a loaded machine.
    static func timeout(for fault: EmulatorFault.Kind) -> Duration {
        fault == slowAnswer || fault == .dropConnection ? .seconds(4) : .seconds(30)
    }

    /// An answer slower than ``timeout(for:)`` allows.
    static let slowAnswer = EmulatorFault.Kind.delay(milliseconds: 6_000)

    /// Runs `body` with a started emulator and a client (not started), and stops both.
    static func run(
        secure: Bool = false, lifetime: Int = 3600, reportsFlags: Bool = false,
        options: SessionOptions = SessionOptions(heartbeatInterval: nil),
        dependencies: ProviderDependencies = ProviderDependencies(), timeout: Duration = .seconds(30),
        retries: RetryPolicy? = nil, _ body: (SocialPlusHarness) async throws -> Void
    ) async throws {
        var seed = SocialPlusSeed.standard
        seed.secureMode = secure
        seed.accessTokenLifetime = lifetime
        seed.reportsFlagsAtLogin = reportsFlags
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus], seed: EmulatorSeed(socialPlus: seed), clockStart: start))
        do {
            let harness = try SocialPlusHarness(
                emulator: emulator, options: options, dependencies: dependencies, timeout: timeout,
                retries: retries)
            try await body(harness)
            await harness.client.shutdown()
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private init(
        emulator: Emulator, options: SessionOptions, dependencies: ProviderDependencies, timeout: Duration,
        retries: RetryPolicy?
    ) throws {
        self.emulator = emulator
        endpoint = try #require(emulator.socialPlus)
        clock = ManualClock(now: Self.start)
        store = try MemorySecretStore(namespace: "socialplus-test")
        logs = LogCapture()
        transport = RecordingTransport(TestTransport.make(defaultTimeout: timeout))
        self.options = options
        self.retries = retries
        client = try Self.makeClient(
            endpoint: endpoint, store: store, transport: transport, retries: retries, clock: clock, logs: logs,
            options: options, dependencies: dependencies)
    }

    /// Another client on the same store, as after a restart.
    func restarted(dependencies: ProviderDependencies = ProviderDependencies(), store: (any SecretStore)? = nil) throws -> AuthClient {
        try Self.makeClient(
            endpoint: endpoint, store: store ?? self.store, transport: transport, retries: retries, clock: clock,
            logs: logs, options: options, dependencies: dependencies)
    }

    private static func makeClient(
        endpoint: SocialPlusEndpoint, store: any SecretStore, transport: RecordingTransport, retries: RetryPolicy?,
        clock: ManualClock, logs: LogCapture, options: SessionOptions,
        dependencies: ProviderDependencies
    ) throws -> AuthClient {
        let registry = ProviderRegistry()
        registry.register(SocialPlusProvider.factory)
        let configuration = LatchkeyConfiguration(
            provider: "socialplus",
            settings: ["api_key": endpoint.apiKey, "base_url": endpoint.baseURL.absoluteString],
            session: options)
        let wire: any HTTPTransport = retries.map { RetryingTransport(transport, policy: $0, clock: clock) } ?? transport
        return try registry.makeClient(
            configuration, store: store, dependencies: dependencies, transport: wire, clock: clock,
            logger: logs.logger)
    }

    /// Moves both clocks forward (the emulator's first, so woken timers meet the new time).
    func advance(by seconds: TimeInterval) async {
        emulator.control.advanceClock(by: seconds)
        clock.advance(by: .milliseconds(Int64(seconds * 1000)))
        await Task.yield()
    }

    func logins() async -> Int { await emulator.control.count(Self.loginRoute) }

    /// How many user lookups (`GET /api/v3/users/{userId}`) the emulator answered.
    func userChecks() async -> Int { await emulator.control.count(Self.userRoute) }

    func login(_ userID: String = "alice", displayName: String? = "Alice", authToken: String? = nil) async throws {
        try await client.login(SocialPlusLogin(userID: userID, displayName: displayName, authToken: authToken))
    }

    /// A server-minted auth token, through the adapter's backend helper.
    func mintAuthToken(_ userID: String = "alice") async throws -> String {
        try await SocialPlusAuthTokenIssuer(
            serverKey: endpoint.serverKey, baseURL: endpoint.baseURL,
            transport: URLSessionTransport(defaultTimeout: .seconds(5))
        ).authToken(for: userID)
    }

    /// An app request to the social.plus API.
    func userRequest(_ userID: String = "alice") -> TransportRequest {
        TransportRequest(url: endpoint.baseURL.appending(path: "api/v3/users/\(userID)"))
    }

    /// The JSON bodies of the logins sent so far.
    func loginBodies() -> [JSONObject] {
        transport.requests.filter { $0.method == "POST" && $0.url.path.hasSuffix("/api/v5/sessions") }
            .compactMap { $0.body.flatMap { try? JSONValue.parse(bytes: Array($0)).objectValue } }
    }
}

/// Passes requests to another transport and remembers them (bodies included: tests only).
final class RecordingTransport: HTTPTransport {
    let base: any HTTPTransport
    private let log = Mutex<[TransportRequest]>([])

    init(_ base: any HTTPTransport) { self.base = base }

    var requests: [TransportRequest] { log.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try await base.send(request)
    }
}

/// Collects a client's state changes.
final class StateRecorder: Sendable {
    private final class Box: Sendable {
        let states = Mutex<[SessionState]>([])
    }

    private let box = Box()
    private let task: Task<Void, Never>

    init(_ client: AuthClient) {
        let changes = client.stateChanges
        let box = self.box
        task = Task {
            for await state in changes { box.states.withLock { $0.append(state) } }
        }
    }

    var all: [SessionState] { box.states.withLock { $0 } }

    deinit { task.cancel() }
}

/// Waits, with the `.sleeping` patience of LatchkeyTestSupport, until `condition` holds.
func settle(_ what: Comment, _ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    await settle(what, patience: .sleeping, sourceLocation: sourceLocation, condition)
}

/// Runs `body` and returns the AuthError it threw, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    await thrownError(AuthError.self, body)
}

/// A session handler answering from a script, counting its calls; may run a hook first.
final class ScriptedSessionHandler: SocialPlusSessionHandler {
    private let state: Mutex<(answers: [SocialPlusRenewalAnswer], calls: Int)>
    private let hook: (@Sendable (String) async throws -> Void)?
    let fallback: SocialPlusRenewalAnswer

    init(
        _ answers: [SocialPlusRenewalAnswer] = [], fallback: SocialPlusRenewalAnswer = .renew,
        hook: (@Sendable (String) async throws -> Void)? = nil
    ) {
        state = Mutex((answers, 0))
        self.fallback = fallback
        self.hook = hook
    }

    var calls: Int { state.withLock { $0.calls } }

    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer {
        try await hook?(userID)
        return state.withLock { state in
            state.calls += 1
            return state.answers.isEmpty ? fallback : state.answers.removeFirst()
        }
    }
}

/// A session handler from a closure.
struct ClosureSessionHandler: SocialPlusSessionHandler {
    let body: @Sendable (String) async throws -> SocialPlusRenewalAnswer

    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer {
        try await body(userID)
    }
}

/// A counter shared with handlers.
final class Counter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    @discardableResult func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
