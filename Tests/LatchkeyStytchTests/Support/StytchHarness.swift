import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import LatchkeySecrets
import LatchkeyStytch
// Every file of the suite uses the shared support (logs, settle, errors).
@_exported import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import Logging
import Synchronization
import Testing

/// A Stytch emulator on loopback, a client built through the registry with the Stytch
/// factory, a manual clock kept in step with the emulator's, a memory store, and
/// captured logs and requests.
struct StytchHarness {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    let emulator: Emulator
    let endpoint: StytchEndpoint
    let clock: ManualClock
    let store: MemorySecretStore
    let logs: LogCapture
    let transport: RecordingTransport
    let configuration: LatchkeyConfiguration
    let client: AuthClient

    static func make(
        b2b: Bool = false, options: SessionOptions = SessionOptions(renewsProactively: false),
        settings extra: [String: String] = [:], timeout: Duration = .seconds(5),
        redirect: LoopbackRedirect? = nil
    ) async throws -> StytchHarness {
        // With a redirect: the client's OAuth redirect_uri, and the project's one Redirect URL.
        var emulatorOptions = EmulatorOptions(providers: [.stytch], clockStart: start)
        if let redirect { emulatorOptions.seed.stytch.redirectURLs = [redirect.absoluteString] }
        let emulator = try await Emulator.start(emulatorOptions)
        let endpoint = try #require(emulator.stytch)
        let clock = ManualClock(now: start)
        let logs = LogCapture()
        let transport = RecordingTransport(TestTransport.make(defaultTimeout: timeout))
        var settings: [String: String] = [
            "public_token": endpoint.publicToken, "base_url": endpoint.baseURL.absoluteString,
            "project_id": endpoint.projectID, "app_identifier": endpoint.appIdentifier,
        ]
        if let redirect { settings["redirect_uri"] = redirect.absoluteString }
        settings.merge(extra) { _, new in new }
        let configuration = LatchkeyConfiguration(
            provider: b2b ? StytchB2BProvider.identifier : StytchProvider.identifier,
            settings: ProviderSettings(settings), session: options)
        let store = try MemorySecretStore(namespace: "stytch-test")
        let client = try registry.makeClient(configuration, store: store, transport: transport, clock: clock, logger: logs.logger)
        return StytchHarness(
            emulator: emulator, endpoint: endpoint, clock: clock, store: store, logs: logs, transport: transport,
            configuration: configuration, client: client)
    }

    /// A registry with both Stytch factories.
    static let registry: ProviderRegistry = {
        let registry = ProviderRegistry()
        registry.register(StytchProvider.factory)
        registry.register(StytchB2BProvider.factory)
        return registry
    }()

    var registry: ProviderRegistry { Self.registry }

    /// A second client on the same store, as after a restart.
    func restarted(options: SessionOptions? = nil) throws -> AuthClient {
        var configuration = self.configuration
        if let options { configuration.session = options }
        return try registry.makeClient(configuration, store: store, transport: transport, clock: clock, logger: logs.logger)
    }

    /// Moves both clocks.
    func advance(by seconds: Int) {
        emulator.control.advanceClock(by: TimeInterval(seconds))
        clock.advance(by: .seconds(seconds))
    }

    func count(_ path: String) async -> Int {
        await emulator.control.count(EmulatorRoute(.stytch, "POST", "/sdk/v1/" + path))
    }

    func inject(_ path: String, _ kind: EmulatorFault.Kind, trigger: EmulatorFault.Trigger = .next(1)) async {
        await emulator.control.inject(EmulatorFault(route: EmulatorRoute(.stytch, "POST", "/sdk/v1/" + path), kind: kind, trigger: trigger))
    }

    func loginAlice(minutes: Int = 60) async throws {
        try await client.login(
            StytchCredentials.password(email: "alice@example.com", password: "alice-password-1"),
            sessionDuration: .seconds(minutes * 60))
    }

    func storedRecord() async throws -> String? {
        try await store.string(SessionOptions().vaultEntryName)
    }

    func stop() async {
        await client.shutdown()
        await emulator.stop()
    }

    /// Runs `body` with a harness and stops it whatever happens.
    static func with(
        b2b: Bool = false, options: SessionOptions = SessionOptions(renewsProactively: false),
        settings: [String: String] = [:], timeout: Duration = .seconds(5), redirect: LoopbackRedirect? = nil,
        _ body: (StytchHarness) async throws -> Void
    ) async throws {
        let harness = try await make(b2b: b2b, options: options, settings: settings, timeout: timeout, redirect: redirect)
        do { try await body(harness) } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}

/// Forwards to a real transport and records each request (path, headers, JSON body).
final class RecordingTransport: HTTPTransport {
    struct Record: Sendable {
        var path: String
        var headers: TransportHeaders
        var body: JSONObject?
    }

    let base: any HTTPTransport
    private let records = Mutex<[Record]>([])
    /// Answers requests to `https://app.test/…`: the app's own API.
    let app = Mutex<(@Sendable (TransportRequest) -> TransportResponse)?>(nil)

    init(_ base: any HTTPTransport) { self.base = base }

    var all: [Record] { records.withLock { $0 } }

    func last(_ suffix: String) -> Record? { all.last { $0.path.hasSuffix(suffix) } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.host == "app.test", let handler = app.withLock({ $0 }) { return handler(request) }
        let body = request.body.flatMap { try? JSONValue.parse(bytes: Array($0)).objectValue }
        records.withLock { $0.append(Record(path: request.url.path, headers: request.headers, body: body)) }
        return try await base.send(request)
    }
}

/// Waits, with the `.milliseconds` patience of LatchkeyTestSupport, until `condition` holds.
func settle(_ what: Comment, _ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    await settle(what, patience: .milliseconds, sourceLocation: sourceLocation, condition)
}

/// Runs `body` and returns the AuthError it threw, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    await thrownError(AuthError.self, body)
}

/// Raw Stytch calls (as another device or the app's web view would make them).
enum StytchRaw {
    static func post(_ endpoint: StytchEndpoint, _ path: String, session: String? = nil, _ body: JSONObject) async throws -> JSONObject {
        var request = TransportRequest(method: "POST", url: endpoint.sdkBaseURL.appending(path: path), body: Data(JSONValue.object(body).jsonBytes))
        request.headers["Content-Type"] = "application/json"
        request.headers["Authorization"] = "Basic " + Data("\(endpoint.publicToken):\(session ?? endpoint.publicToken)".utf8).base64EncodedString()
        let response = try await URLSessionTransport().send(request)
        let value = try JSONValue.parse(bytes: Array(response.body))
        return try #require(value.objectValue)
    }

    /// A fresh consumer session for alice: (session token, session JWT).
    static func aliceTokens(_ endpoint: StytchEndpoint) async throws -> SessionTokens {
        let body = try await post(
            endpoint, "passwords/authenticate",
            [
                "email": "alice@example.com", "password": "alice-password-1",
                "session_duration_minutes": 60,
            ])
        let data = try #require(body["data"]?.objectValue)
        return SessionTokens(
            accessToken: try #require(data["session_jwt"]?.stringValue), sessionToken: try #require(data["session_token"]?.stringValue))
    }
}

enum LatchkeySecretsProbe {
    static func memory() throws -> MemorySecretStore { try MemorySecretStore(namespace: "registry-test") }
}
