import Foundation
@_spi(Benchmarks) import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
// Every file of the suite uses the shared support (logs, settle, errors).
@_exported import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import Logging
import Synchronization
import Testing

/// The emulator's Auth0 tenant, a client on a manual clock in step with the emulator's
/// frozen clock, a memory store and captured logs.
struct Auth0Harness {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    let emulator: Emulator
    let auth0: Auth0Endpoint
    let clock: ManualClock
    let store: any SecretStore
    let logs: LogCapture
    let provider: Auth0Provider
    let client: AuthClient
    let options: SessionOptions
    /// The client's browser-login redirect, on a free port; the tenant allows it as its
    /// callback URL unless the seed names its own.
    let redirect: LoopbackRedirect

    /// - Parameter clockSkew: how far the client's clock is ahead of the emulator's (negative: behind).
    init(
        seed: Auth0Seed = .standard, options: SessionOptions = SessionOptions(heartbeatInterval: nil), organization: String? = nil,
        redirect: LoopbackRedirect? = nil, clockSkew: TimeInterval = 0
    ) async throws {
        let redirect = try redirect ?? LoopbackRedirect(port: RawHTTP.freePort())
        self.redirect = redirect
        var seed = seed
        if seed.callbackURLs == Auth0Seed.standard.callbackURLs { seed.callbackURLs = [redirect.absoluteString] }
        var emulatorOptions = EmulatorOptions(providers: [.auth0], clockStart: Self.start)
        emulatorOptions.seed.auth0 = seed
        emulator = try await Emulator.start(emulatorOptions)
        auth0 = try #require(emulator.auth0)
        clock = ManualClock(now: Self.start.addingTimeInterval(clockSkew))
        store = try MemorySecretStore(namespace: "auth0-test")
        logs = LogCapture()
        self.options = options
        let configuration = try Auth0Configuration(
            domain: auth0.domain, clientID: auth0.clientID, baseURL: auth0.baseURL,
            organization: organization, redirectURI: redirect)
        provider = Auth0Provider(configuration: configuration, transport: TestTransport.make(), clock: clock, logger: logs.logger)
        client = AuthClient(provider: provider, store: store, options: options, transport: TestTransport.make(), clock: clock, logger: logs.logger)
    }

    /// A second client on the same store, as after a restart.
    func restarted() -> AuthClient {
        AuthClient(provider: provider, store: store, options: options, transport: TestTransport.make(), clock: clock, logger: logs.logger)
    }

    /// Moves both clocks.
    func advance(by seconds: TimeInterval) {
        emulator.control.advanceClock(by: seconds)
        clock.advance(by: .seconds(seconds))
    }

    func loginAlice() async throws {
        try await client.start()
        try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1", realm: auth0.connection))
    }

    func refreshGrants() async -> Int {
        await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "refresh_token")
    }

    func count(_ method: String, _ path: String, grant: String? = nil) async -> Int {
        await emulator.control.count(EmulatorRoute(.auth0, method, path), grant: grant)
    }

    func stop() async {
        await client.shutdown()
        await emulator.stop()
    }

    /// Every secret the session holds now, for the log checks.
    func secrets() async throws -> [String] {
        guard let bytes = try await store.get(SessionOptions().vaultEntryName) else { return [] }
        // Decoded as the client decodes it (the record is binary since format 2).
        let tokens = try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens
        return [tokens.accessToken, tokens.refreshToken, tokens.idToken].compactMap { $0 }
    }
}

let tokenRoute = EmulatorRoute(.auth0, "POST", "/oauth/token")
let userInfoRoute = EmulatorRoute(.auth0, "GET", "/userinfo")

/// Waits, with the `.emulator` patience of LatchkeyTestSupport, until `condition` holds.
func settle(_ what: Comment, _ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    await settle(what, patience: .emulator, sourceLocation: sourceLocation, condition)
}

/// Runs `body` and returns the AuthError it threw, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    await thrownError(AuthError.self, body)
}
