import Foundation
@_spi(Benchmarks) import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Synchronization
import Testing

/// A host of Auth0 sessions over the emulator, each user's session in an encrypted file
/// store of its own (real files in a temporary directory), on a manual clock in step
/// with the emulator's.
private final class HostHarness: Sendable {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let people = ["alice", "bob", "carol"]

    let emulator: Emulator
    let auth0: Auth0Endpoint
    let clock: ManualClock
    let directory: String
    let provider: Auth0Provider
    let options: SessionHostOptions
    /// Each user's store, once the host asked for it.
    let stores = Mutex<[String: HostTestStore]>([:])
    /// How many times the host asked for a store (one per load).
    let storeRequests = Atomic<Int>(0)

    init(options: SessionHostOptions) async throws {
        let seed = Auth0Seed(
            clientID: "latchkey-emulator-client", userInfoBurst: 1_000, userInfoPerMinute: 1_000,
            users: Self.people.map {
                Auth0Seed.User(userID: "auth0|\($0)", email: "\($0)@example.com", password: "\($0)-password-1")
            })
        var emulatorOptions = EmulatorOptions(providers: [.auth0], clockStart: Self.start)
        emulatorOptions.seed.auth0 = seed
        emulator = try await Emulator.start(emulatorOptions)
        auth0 = try #require(emulator.auth0)
        clock = ManualClock(now: Self.start)
        directory = FileManager.default.temporaryDirectory.appending(path: "latchkey-host-\(UUID().uuidString)").path
        provider = Auth0Provider(
            configuration: try Auth0Configuration(domain: auth0.domain, clientID: auth0.clientID, baseURL: auth0.baseURL),
            transport: URLSessionTransport(), clock: clock)
        self.options = options
    }

    /// A host whose stores are this harness's (a second host reads what the first saved).
    func host() -> SessionHost {
        SessionHost(provider: provider, options: options, transport: URLSessionTransport(), clock: clock) { userID in
            self.storeRequests.add(1, ordering: .relaxed)
            return try self.store(userID)
        }
    }

    func store(_ userID: String) throws -> HostTestStore {
        try stores.withLock { stores in
            if let store = stores[userID] { return store }
            let configuration = SecretStoreConfiguration(dataDirectory: directory + "/data", configDirectory: directory + "/config")
            let store = HostTestStore(try EncryptedFileSecretStore(namespace: "host-" + userID, configuration: configuration))
            stores[userID] = store
            return store
        }
    }

    /// Signs `person` in as the host's user of the same name.
    func login(_ host: SessionHost, _ person: String) async throws {
        try await host.login(
            Auth0Credentials.password(
                username: "\(person)@example.com", password: "\(person)-password-1",
                realm: auth0.connection), for: person)
    }

    func advance(by seconds: TimeInterval) {
        emulator.control.advanceClock(by: seconds)
        clock.advance(by: .seconds(seconds))
    }

    func count(_ method: String, _ path: String, grant: String? = nil) async -> Int {
        await emulator.control.count(EmulatorRoute(.auth0, method, path), grant: grant)
    }

    func storedTokens(_ userID: String) async throws -> SessionTokens? {
        guard let bytes = try await store(userID).get(SessionOptions().vaultEntryName) else { return nil }
        return try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens
    }

    func stop(_ host: SessionHost) async {
        await host.shutdown()
        await emulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A real file store that refuses writes on command (a full disk) and counts reads.
private final class HostTestStore: SecretStore {
    let base: EncryptedFileSecretStore
    let refusesWrites = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the store refused (ENOSPC)" }
    }

    init(_ base: EncryptedFileSecretStore) { self.base = base }

    var namespace: String { base.namespace }
    var backendName: String { "test-file" }

    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        reads.add(1, ordering: .relaxed)
        return try await base.get(name)
    }

    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        if refusesWrites.load(ordering: .relaxed) { throw Refused() }
        try await base.set(name, value)
    }

    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool { try await base.remove(name) }
    nonisolated(nonsending) func removeAll() async throws { try await base.removeAll() }
    nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }

    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await base.withExclusiveLock(body)
    }
}

@Suite("Session host: many users' sessions in one server")
struct SessionHostTests {
    private static let oneDay: TimeInterval = 86_400

    @Test func loadsOnDemandAndLetsTheLeastRecentlyUsedGo() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 2))
        let host = harness.host()
        #expect(await host.statistics.resident == 0, "nothing is loaded before a use")
        for person in HostHarness.people { try await harness.login(host, person) }

        // Alice was the least recently used when Carol came.
        await settle("alice left") { await host.isResident("alice") == false }
        let bobStays = await host.isResident("bob")
        let carolStays = await host.isResident("carol")
        #expect(bobStays && carolStays)
        var figures = await host.statistics
        #expect(figures.resident == 2 && figures.loads == 3 && figures.evictions == 1)

        // Her next use loads her session from her store: the saved token, no renewal.
        let stored = try #require(try await harness.storedTokens("alice"))
        #expect(try await host.accessToken(for: "alice") == stored.accessToken)
        #expect(await harness.count("POST", "/oauth/token", grant: "refresh_token") == 0)
        await settle("bob left") { await host.isResident("bob") == false }
        figures = await host.statistics
        #expect(figures.resident == 2 && figures.loads == 4 && figures.evictions == 2)
        #expect(await host.isResident("carol"))
        await harness.stop(host)
    }

    @Test func concurrentFirstUsesMakeOneLoad() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 10))
        let first = harness.host()
        try await harness.login(first, "alice")
        await first.shutdown()
        let readsBefore = try harness.store("alice").reads.load(ordering: .relaxed)
        let requestsBefore = harness.storeRequests.load(ordering: .relaxed)

        let host = harness.host()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await host.accessToken(for: "alice") } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(harness.storeRequests.load(ordering: .relaxed) - requestsBefore == 1, "one store asked for")
        #expect(try harness.store("alice").reads.load(ordering: .relaxed) - readsBefore == 1, "one restore read")
        #expect(await host.statistics.loads == 1)
        await harness.stop(host)
    }

    @Test func aStaleSessionIsValidatedOnceOnUse() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 10, validationAge: .seconds(60)))
        let host = harness.host()
        try await harness.login(host, "alice")
        let checks = await harness.count("GET", "/userinfo")
        _ = try await host.accessToken(for: "alice")
        #expect(await harness.count("GET", "/userinfo") == checks, "a fresh session is not checked")

        harness.advance(by: 120)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await host.accessToken(for: "alice") } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 20)
        #expect(await harness.count("GET", "/userinfo") == checks + 1, "twenty uses of a stale session: one check")
        #expect(await host.statistics.validations == 1)
        _ = try await host.accessToken(for: "alice")
        #expect(await harness.count("GET", "/userinfo") == checks + 1, "checked again only when stale again")
        await harness.stop(host)
    }

    @Test func aRevokedSessionEndsForThatUserOnly() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 10, validationAge: .seconds(60)))
        let host = harness.host()
        try await harness.login(host, "alice")
        try await harness.login(host, "bob")
        try await harness.emulator.control.revokeSessions(of: "auth0|alice", provider: .auth0)
        harness.advance(by: 120)

        let error = await authError { _ = try await host.accessToken(for: "alice") }
        #expect(error?.code == .notLoggedIn)
        #expect(try await host.withSession(for: "alice") { $0.state } == .notLoggedIn)
        #expect(try await harness.storedTokens("alice") == nil)
        _ = try await host.accessToken(for: "bob")
        #expect(try await host.withSession(for: "bob") { $0.state } == .established)
        #expect(try await harness.storedTokens("bob") != nil)
        await harness.stop(host)
    }

    @Test func aLeavingClientNeverLosesARotatedRefreshToken() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 1, validationAge: .seconds(2 * Self.oneDay)))
        let host = harness.host()
        try await harness.login(host, "alice")
        let spent = try #require(try await harness.storedTokens("alice")?.refreshToken)

        // A day later Alice's renewal rotates her refresh token while her store is full.
        harness.advance(by: Self.oneDay + 1)
        try harness.store("alice").refusesWrites.store(true, ordering: .relaxed)
        let renewed = try await host.accessToken(for: "alice")
        #expect(try await host.withSession(for: "alice") { await $0.hasUnsavedTokens })
        #expect(try await harness.storedTokens("alice")?.refreshToken == spent)

        // Bob's login would push her out: she stays, holding the only copy.
        try await harness.login(host, "bob")
        await settle("the host tried to let alice go") { await host.statistics.keptWithUnsavedTokens >= 1 }
        await settle("alice is back in memory") { await host.isResident("alice") }
        #expect(try await host.withSession(for: "alice") { try await $0.accessToken() } == renewed)

        // The store takes writes again: the next time she is the oldest, she is saved and leaves.
        try harness.store("alice").refusesWrites.store(false, ordering: .relaxed)
        _ = try await host.accessToken(for: "bob")
        await settle("alice left") { await host.isResident("alice") == false }
        // Her client leaves the host's table first, and then saves as it shuts down.
        await settle("alice saved") { (try? await harness.storedTokens("alice"))?.accessToken == renewed }
        let saved = try #require(try await harness.storedTokens("alice"))
        #expect(saved.accessToken == renewed && saved.refreshToken != spent)
        let status = try await harness.emulator.control.auth0RefreshTokenStatus(try #require(saved.refreshToken))
        #expect(status.newest && !status.spent && !status.familyRevoked, "\(status)")
        #expect(try await host.accessToken(for: "alice") == renewed, "reloaded from the store")
        #expect(await harness.count("POST", "/oauth/token", grant: "refresh_token") == 1)
        await harness.stop(host)
    }

    @Test func aSubscriptionGoesOnAcrossEviction() async throws {
        let harness = try await HostHarness(options: SessionHostOptions(capacity: 1, validationAge: .seconds(60)))
        let host = harness.host()
        let seen = Mutex<[SessionState]>([])
        let changes = await host.stateChanges(for: "alice")
        let subscriber = Task { for await state in changes { seen.withLock { $0.append(state) } } }
        try await harness.login(host, "alice")
        await settle("established seen") { seen.withLock { $0.last == .established } }

        try await harness.login(host, "bob")
        await settle("alice left") { await host.isResident("alice") == false }
        #expect(seen.withLock { $0.last } == .established, "leaving memory is not a change of the session")

        // Revoked while she was out of memory: her next use loads, validates and ends her session.
        try await harness.emulator.control.revokeSessions(of: "auth0|alice", provider: .auth0)
        harness.advance(by: 120)
        _ = await authError { _ = try await host.accessToken(for: "alice") }
        await settle("the end seen through the host") { seen.withLock { $0.last == .notLoggedIn } }
        let states = seen.withLock { $0 }
        #expect(states.filter { $0 == .established }.count == 1, "the reload repeated nothing: \(states)")
        await host.shutdown()
        await subscriber.value
        await harness.stop(host)
    }

    /// Ten thousand users' sessions loaded at once in one host, none let go and nothing
    /// sent: each load restores a stored session. The resident memory this takes is
    /// printed (the figures for the docs come from the release benchmark `Host/load10000`).
    @Test func tenThousandUsersStayLoadedInOneHost() async throws {
        let users = 10_000
        let harness = try await HostHarness(options: SessionHostOptions(capacity: users))
        let first = harness.host()
        try await harness.login(first, "alice")
        await first.shutdown()
        let record = try #require(try await harness.store("alice").get(SessionOptions().vaultEntryName))
        var stores: [String: MemorySecretStore] = [:]
        for index in 0..<users {
            let store = try MemorySecretStore(namespace: "host-\(index)")
            try await store.set(SessionOptions().vaultEntryName, record)
            stores["user-\(index)"] = store
        }
        let frozen = stores
        let host = SessionHost(provider: harness.provider, options: harness.options, transport: URLSessionTransport(), clock: harness.clock) {
            userID in
            guard let store = frozen[userID] else { throw HostTestStore.Refused() }
            return store
        }
        let tokens = await harness.count("POST", "/oauth/token")
        let before = residentBytes()
        for index in 0..<users { _ = try await host.accessToken(for: "user-\(index)") }
        let grown = residentBytes() - before
        let figures = await host.statistics
        #expect(figures.resident == users && figures.loads == users && figures.evictions == 0)
        #expect(await harness.count("POST", "/oauth/token") == tokens, "loading sends nothing")
        #expect(harness.clock.sleeperCount == 0, "no task per user: nothing sleeps on the clock (no expiry timer either)")
        FileHandle.standardError.write(
            Data(
                "SessionHost: \(users) sessions loaded, resident memory grew \(grown / 1024) KiB (\(grown / users) bytes a session, debug build)\n"
                    .utf8))
        await harness.stop(host)
    }

    @Test func aShutDownHostRefusesUses() async throws {
        let harness = try await HostHarness(options: SessionHostOptions())
        let host = harness.host()
        try await harness.login(host, "alice")
        await host.shutdown()
        let error = await authError { _ = try await host.accessToken(for: "alice") }
        #expect(error?.code == .cancelled)
        #expect(try await harness.storedTokens("alice") != nil, "a live session stays stored")
        await harness.stop(host)
    }

    @Test func aStoreThatCannotBeOpenedFailsTheUseAndIsAskedAgain() async throws {
        let harness = try await HostHarness(options: SessionHostOptions())
        let attempts = Atomic<Int>(0)
        let host = SessionHost(provider: harness.provider, options: harness.options, transport: URLSessionTransport(), clock: harness.clock) {
            userID in
            attempts.add(1, ordering: .relaxed)
            guard attempts.load(ordering: .relaxed) > 1 else { throw HostTestStore.Refused() }
            return try harness.store(userID)
        }
        await #expect(throws: HostTestStore.Refused.self) { _ = try await host.accessToken(for: "alice") }
        #expect(await host.isResident("alice") == false)
        let error = await authError { _ = try await host.accessToken(for: "alice") }
        #expect(error?.code == .notLoggedIn, "the second use loaded the (empty) store")
        #expect(attempts.load(ordering: .relaxed) == 2)
        await harness.stop(host)
    }
}

/// The process's resident set in bytes, from `/proc/self/statm` (0 where unreadable).
private func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
