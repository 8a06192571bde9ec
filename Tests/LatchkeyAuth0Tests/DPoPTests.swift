import Foundation
@_spi(Benchmarks) import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Synchronization
import Testing

/// DPoP (RFC 9449) end to end: the adapter, configured as an app configures it, against
/// an emulated tenant that requires sender-constrained tokens.
@Suite("Auth0 DPoP over loopback HTTP")
struct DPoPTests {
    static let oneDay: TimeInterval = 86_400
    static let keyEntry = "provider.auth0.dpop_key"

    static var requiring: Auth0Seed {
        var seed = Auth0Seed.standard
        seed.requireDPoP = true
        return seed
    }

    struct Locked: Error {}

    /// A store whose reads and writes of the DPoP key can be made to fail (a locked keyring).
    final class KeyReadFailingStore: SecretStore {
        let base: MemorySecretStore
        let failsKeyReads = Atomic<Bool>(false)
        let failsKeyWrites = Atomic<Bool>(false)

        init(namespace: String) throws { base = try MemorySecretStore(namespace: namespace) }

        var namespace: String { base.namespace }
        var backendName: String { "key-read-failing memory store" }
        nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
            if name.hasSuffix("dpop_key"), failsKeyReads.load(ordering: .relaxed) { throw Locked() }
            return try await base.get(name)
        }
        nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
            if name.hasSuffix("dpop_key"), failsKeyWrites.load(ordering: .relaxed) { throw Locked() }
            try await base.set(name, value)
        }
        nonisolated(nonsending) func remove(_ name: String) async throws -> Bool { try await base.remove(name) }
        nonisolated(nonsending) func removeAll() async throws { try await base.removeAll() }
        nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }
        func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R { try await base.withExclusiveLock(body) }
    }

    /// The tenant, a manual clock in step with it, one store, and clients built from
    /// configuration as an app builds them (`"dpop": "true"` or not).
    struct Setup {
        let emulator: Emulator
        let auth0: Auth0Endpoint
        let clock: ManualClock
        let store: KeyReadFailingStore
        let logs: LogCapture
        let client: AuthClient

        init(seed: Auth0Seed = DPoPTests.requiring, dpop: Bool = true) async throws {
            var options = EmulatorOptions(providers: [.auth0], clockStart: Auth0Harness.start)
            options.seed.auth0 = seed
            emulator = try await Emulator.start(options)
            auth0 = try #require(emulator.auth0)
            clock = ManualClock(now: Auth0Harness.start)
            store = try KeyReadFailingStore(namespace: "auth0-dpop-test")
            logs = LogCapture()
            client = try Self.client(auth0: auth0, store: store, clock: clock, logs: logs, dpop: dpop)
        }

        static func client(auth0: Auth0Endpoint, store: any SecretStore, clock: ManualClock, logs: LogCapture, dpop: Bool) throws -> AuthClient {
            let registry = ProviderRegistry()
            registry.register(Auth0Provider.factory)
            let settings: ProviderSettings = [
                "domain": auth0.domain, "client_id": auth0.clientID, "base_url": auth0.baseURL.absoluteString,
                "dpop": dpop ? "true" : "false",
            ]
            // Renewals only when a test asks: a background one would race the checks.
            let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
            let configuration = LatchkeyConfiguration(provider: "auth0", settings: settings, session: options)
            let provider = try registry.makeProvider(configuration, store: store, transport: URLSessionTransport(), clock: clock, logger: logs.logger)
            return AuthClient(provider: provider, store: store, options: options, transport: URLSessionTransport(), clock: clock, logger: logs.logger)
        }

        /// Another client on the same store: a restart, or an app still on the old adapter.
        func another(dpop: Bool = true) throws -> AuthClient {
            try Self.client(auth0: auth0, store: store, clock: clock, logs: logs, dpop: dpop)
        }

        func loginAlice(_ client: AuthClient? = nil) async throws {
            let client = client ?? self.client
            try await client.start()
            try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1", realm: auth0.connection))
        }

        func advance(by seconds: TimeInterval) {
            emulator.control.advanceClock(by: seconds)
            clock.advance(by: .seconds(seconds))
        }

        func count(_ method: String, _ path: String, grant: String? = nil) async -> Int {
            await emulator.control.count(EmulatorRoute(.auth0, method, path), grant: grant)
        }

        func stored() async throws -> SessionTokens? {
            guard let bytes = try await store.base.get(SessionOptions().vaultEntryName) else { return nil }
            return try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens
        }

        func storedKey() async throws -> [UInt8]? { try await store.base.get(DPoPTests.keyEntry) }

        func stop(_ clients: AuthClient...) async {
            for client in [client] + clients { await client.shutdown() }
            await emulator.stop()
        }
    }

    @Test func aDPoPLoginRenewsAndIsCheckedWithProofs() async throws {
        let setup = try await Setup()
        try await setup.loginAlice()
        #expect(setup.client.state == .established)
        let tokens = try #require(try await setup.stored())
        #expect(tokens.attributes["token_type"] == "DPoP")
        let key = try #require(try await setup.storedKey(), "the key pair is kept in the adapter's namespace of the store")
        #expect(String(decoding: key, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        // Renewal: a refresh grant signed by the same key.
        setup.advance(by: Self.oneDay + 1)
        let renewed = try await setup.client.accessToken()
        #expect(renewed != tokens.accessToken)
        #expect(await setup.count("POST", "/oauth/token", grant: "refresh_token") == 1)
        #expect(try await setup.stored()?.refreshToken != tokens.refreshToken, "rotated and saved")
        // The app's own request to a DPoP resource.
        let response = try await setup.client.send(TransportRequest(url: setup.auth0.baseURL.appending(path: "userinfo")))
        #expect(response.status == 200)
        // A restart restores the session: /userinfo checked with a proof of the stored key.
        let restarted = try setup.another()
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(await setup.count("GET", "/userinfo") == 2)
        #expect(try await setup.storedKey() == key, "no new key at restore")
        let pem = String(decoding: key, as: UTF8.self).split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        for secret in [pem, renewed] { #expect(!setup.logs.all.joined(separator: "\n").contains(secret)) }
        await setup.stop(restarted)
    }

    @Test func theOldAdapterIsRefusedAtLoginAndAtRenewal() async throws {
        let setup = try await Setup(dpop: false)
        let refused = await authError { try await setup.loginAlice() }
        #expect(refused?.providerCode == "invalid_dpop_proof")
        #expect(setup.client.state == .notLoggedIn)
        // The DPoP adapter logs in; an app still on the old adapter cannot renew that session.
        let current = try setup.another(dpop: true)
        try await setup.loginAlice(current)
        let before = try #require(try await setup.stored())
        setup.advance(by: Self.oneDay + 1)
        let old = try setup.another(dpop: false)
        try await old.start()
        let renewal = await authError { _ = try await old.accessToken() }
        #expect(renewal?.providerCode == "invalid_dpop_proof")
        #expect(renewal?.endsSession == false, "a refusal of the proof is not a verdict on the session")
        #expect(try await setup.stored()?.refreshToken == before.refreshToken, "nothing was renewed")
        // The DPoP adapter still renews it.
        _ = try await current.accessToken()
        #expect(try await setup.stored()?.refreshToken != before.refreshToken)
        await setup.stop(current, old)
    }

    @Test func nonceChallengesAreAnsweredOnceAtTheTokenEndpointAndInSend() async throws {
        var seed = Self.requiring
        seed.requireDPoPNonce = true
        let setup = try await Setup(seed: seed)
        try await setup.loginAlice()
        #expect(setup.client.state == .established)
        #expect(await setup.count("POST", "/oauth/token") == 2, "one use_dpop_nonce, then the signed answer")
        // Five minutes on the nonce has changed: the app's request is challenged, signed
        // again with the new nonce and sent once more — no renewal.
        setup.advance(by: 300)
        let response = try await setup.client.send(TransportRequest(url: setup.auth0.baseURL.appending(path: "userinfo")))
        #expect(response.status == 200)
        #expect(await setup.count("GET", "/userinfo") == 2)
        #expect(await setup.count("POST", "/oauth/token", grant: "refresh_token") == 0)
        // A renewal a day on: challenged once more, then renewed.
        setup.advance(by: Self.oneDay)
        _ = try await setup.client.accessToken()
        #expect(await setup.count("POST", "/oauth/token", grant: "refresh_token") == 2)
        #expect(setup.client.state == .established)
        await setup.stop()
    }

    @Test func logoutRemovesTheKeyPairAndTheNextLoginMakesANewOne() async throws {
        let setup = try await Setup()
        try await setup.loginAlice()
        let first = try #require(try await setup.storedKey())
        try await setup.client.logout()
        #expect(try await setup.storedKey() == nil)
        try await setup.client.login(
            Auth0Credentials.password(
                username: "alice@example.com", password: "alice-password-1",
                realm: setup.auth0.connection))
        let second = try #require(try await setup.storedKey())
        #expect(second != first)
        setup.advance(by: Self.oneDay + 1)
        _ = try await setup.client.accessToken()
        #expect(setup.client.state == .established)
        await setup.stop()
    }

    @Test func aBoundSessionWhoseKeyPairIsGoneEnds() async throws {
        let setup = try await Setup()
        try await setup.loginAlice()
        // Another process sharing the store logged out and removed the key.
        _ = try await setup.store.base.remove(Self.keyEntry)
        setup.advance(by: Self.oneDay + 1)
        let error = await authError { _ = try await setup.client.accessToken() }
        #expect(error?.code == .unrecoverable)
        #expect(error?.providerCode == "dpop_key_missing")
        #expect(setup.client.state == .notLoggedIn)
        #expect(await setup.count("POST", "/oauth/token", grant: "refresh_token") == 0, "nothing sent that could not succeed")
        await setup.stop()
    }

    @Test func anUnreadableKeyNeverEndsTheSession() async throws {
        let setup = try await Setup()
        try await setup.loginAlice()
        setup.store.failsKeyReads.store(true, ordering: .relaxed)
        // This process holds the key: the renewal signs with it.
        setup.advance(by: Self.oneDay + 1)
        _ = try await setup.client.accessToken()
        #expect(setup.client.state == .established)
        // A process that never read it: the renewal fails as storage does, the session stays.
        let restarted = try setup.another()
        try await restarted.start()
        setup.advance(by: Self.oneDay + 1)
        let error = await authError { _ = try await restarted.accessToken() }
        #expect(error?.code == .storage)
        #expect(restarted.state != .notLoggedIn)
        #expect(try await setup.stored() != nil)
        setup.store.failsKeyReads.store(false, ordering: .relaxed)
        _ = try await restarted.accessToken()
        #expect(restarted.state == .established)
        await setup.stop(restarted)
    }

    @Test func aKeyThatCannotBeStoredFailsTheLogin() async throws {
        let setup = try await Setup()
        setup.store.failsKeyWrites.store(true, ordering: .relaxed)
        let error = await authError { try await setup.loginAlice() }
        #expect(error?.code == .storage)
        #expect(await setup.count("POST", "/oauth/token") == 0)
        #expect(setup.client.state == .notLoggedIn)
        await setup.stop()
    }

    @Test func theSettingIsABoolean() throws {
        let on = try Auth0Configuration(settings: ["domain": "tenant.example.com", "client_id": "c", "dpop": "yes"])
        #expect(on.dpop)
        #expect(try Auth0Configuration(settings: ["domain": "tenant.example.com", "client_id": "c"]).dpop == false)
        #expect(throws: AuthError.self) { try Auth0Configuration(settings: ["domain": "tenant.example.com", "client_id": "c", "dpop": "maybe"]) }
    }
}
