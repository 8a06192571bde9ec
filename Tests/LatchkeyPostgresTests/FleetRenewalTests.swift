import Foundation
import Glibc
@_spi(Benchmarks) import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyPostgres
import LatchkeySecrets
import LatchkeyTestSupport
import Testing

/// What an instance needs to open the shared session: the tenant, the database, the key
/// file every instance shares, the namespace and the time on the client's clock. Passed
/// to child processes in their environment.
struct FleetSetup: Sendable {
    var domain: String
    var baseURL: URL
    var clientID: String
    var databaseURL: String
    var keyDirectory: String
    var namespace: String

    init(domain: String, baseURL: URL, clientID: String, databaseURL: String, keyDirectory: String, namespace: String) {
        self.domain = domain
        self.baseURL = baseURL
        self.clientID = clientID
        self.databaseURL = databaseURL
        self.keyDirectory = keyDirectory
        self.namespace = namespace
    }

    init?(environment: [String: String]) {
        guard let domain = environment["LATCHKEY_AUTH0_DOMAIN"], let base = environment["LATCHKEY_AUTH0_BASE_URL"].flatMap(URL.init(string:)),
            let clientID = environment["LATCHKEY_AUTH0_CLIENT_ID"], let database = environment["LATCHKEY_TEST_POSTGRES_URL"],
            let keys = environment["LATCHKEY_KEY_DIR"], let namespace = environment["LATCHKEY_NAMESPACE"]
        else { return nil }
        self.init(domain: domain, baseURL: base, clientID: clientID, databaseURL: database, keyDirectory: keys, namespace: namespace)
    }

    func environment(now: Date) -> [String: String] {
        [
            "LATCHKEY_AUTH0_DOMAIN": domain, "LATCHKEY_AUTH0_BASE_URL": baseURL.absoluteString, "LATCHKEY_AUTH0_CLIENT_ID": clientID,
            "LATCHKEY_TEST_POSTGRES_URL": databaseURL, "LATCHKEY_KEY_DIR": keyDirectory, "LATCHKEY_NAMESPACE": namespace,
            "LATCHKEY_NOW": String(now.timeIntervalSince1970),
        ]
    }

    /// The instance's database: a pool of its own, sealing with the shared key file.
    func database() throws -> PostgresSecretDatabase {
        var options = PostgresSecretDatabase.Options()
        options.keyConfiguration = SecretStoreConfiguration(dataDirectory: keyDirectory + "/data", configDirectory: keyDirectory + "/config")
        options.lockTimeout = .seconds(120)
        options.operationTimeout = .seconds(60)
        return try PostgresSecretDatabase(url: databaseURL, options: options)
    }

    /// A client as a server instance builds it: the Auth0 adapter over real HTTP on the
    /// shared PostgreSQL store, on a clock reading `now` (no background renewal).
    func client(_ database: PostgresSecretDatabase, now: Date) throws -> AuthClient {
        let clock = ManualClock(now: now)
        let provider = Auth0Provider(
            configuration: try Auth0Configuration(domain: domain, clientID: clientID, baseURL: baseURL),
            transport: URLSessionTransport(), clock: clock)
        return AuthClient(
            provider: provider, store: try database.store(namespace: namespace),
            options: SessionOptions(heartbeatInterval: nil, renewsProactively: false), transport: URLSessionTransport(), clock: clock)
    }
}

extension PostgresTests {
    @Suite("PostgreSQL store: one renewal across a fleet")
    struct FleetRenewalTests {
        @Test func threeInstancesTimesAHundredCallersMakeOneRefreshGrant() async throws {
            guard let server = PostgresTestServer.current() else { return }
            var emulatorOptions = EmulatorOptions(providers: [.auth0], clockStart: Date(timeIntervalSince1970: 1_800_000_000))
            emulatorOptions.seed.auth0 = .standard
            let emulator = try await Emulator.start(emulatorOptions)
            let keys = try KeyDirectory()
            let auth0 = try #require(emulator.auth0)
            let control = emulator.control
            defer { Task { await emulator.stop() } }
            let setup = FleetSetup(
                domain: auth0.domain, baseURL: auth0.baseURL, clientID: auth0.clientID, databaseURL: server.url,
                keyDirectory: keys.path, namespace: uniqueNamespace("fleet"))
            let refreshRoute = EmulatorRoute(.auth0, "POST", "/oauth/token")

            // Alice logs in through one instance; a day later her access token has expired.
            let database = try setup.database()
            defer { database.shutdown() }
            let login = try setup.client(database, now: control.now)
            try await login.start()
            try await login.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1", realm: auth0.connection))
            await login.shutdown()
            control.advanceClock(by: 86_401)
            let oldRefresh = try #require(try await storedTokens(database, setup)?.refreshToken)

            // The renewal is slow at Auth0, so every other caller asks while it is under way.
            await control.inject(EmulatorFault(route: refreshRoute, grant: "refresh_token", kind: .delay(milliseconds: 500)))
            let go = keys.path + "/go"
            let outputs = ["a", "b", "c"].map { keys.path + "/instance-" + $0 }
            let children = outputs.map { child(setup, now: control.now, output: $0, go: go, calls: 100) }
            defer { for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL) } }
            for child in children { try child.run() }
            let ready = await poll(timeout: .seconds(180)) { outputs.allSatisfy { access($0 + ".ready", F_OK) == 0 } }
            #expect(ready, "the instances started: \(outputs.map { text($0) + text($0 + ".stderr").suffix(2_000) })")
            #expect(FileManager.default.createFile(atPath: go, contents: Data()))
            for (child, output) in zip(children, outputs) {
                #expect(await poll(timeout: .seconds(300)) { !child.isRunning }, "an instance hung")
                #expect(!child.isRunning && child.terminationStatus == 0, "\(text(output).prefix(500)) \(text(output + ".stderr").suffix(2_000))")
            }

            let tokens = outputs.map { text($0).split(separator: "\n").map(String.init) }
            #expect(tokens.map(\.count) == [100, 100, 100])
            #expect(Set(tokens.joined()).count == 1, "every caller of every instance got the one renewed access token")
            #expect(await control.count(refreshRoute, grant: "refresh_token") == 1, "exactly one refresh_token grant across the fleet")

            // The store holds that token and the newest refresh token of the family, and
            // Auth0 takes the access token.
            let stored = try #require(try await storedTokens(database, setup))
            #expect(stored.accessToken == tokens[0].first)
            let status = try await control.auth0RefreshTokenStatus(try #require(stored.refreshToken))
            #expect(stored.refreshToken != oldRefresh)
            #expect(status.known && status.newest && !status.spent && !status.familyRevoked && status.issuedInFamily == 2, "\(status)")
            var request = TransportRequest(url: auth0.baseURL.appending(path: "userinfo"))
            request.headers["Authorization"] = "Bearer \(stored.accessToken)"
            #expect(try await URLSessionTransport().send(request).status == 200)
            try await database.store(namespace: setup.namespace).removeAll()
        }

        private func storedTokens(_ database: PostgresSecretDatabase, _ setup: FleetSetup) async throws -> SessionTokens? {
            guard let bytes = try await database.store(namespace: setup.namespace).get(SessionOptions().vaultEntryName) else { return nil }
            return try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens
        }

        /// An instance: a re-run of this test binary (``FleetChildEntry``).
        private func child(_ setup: FleetSetup, now: Date, output: String, go: String, calls: Int) -> Process {
            let process = Process()
            process.executableURL = URL(
                fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            process.arguments = ["--testing-library", "swift-testing", "--filter", "FleetChildEntry"]
            var environment = ProcessInfo.processInfo.environment
            environment["LATCHKEY_FLEET_CHILD"] = "access-tokens"
            environment["LATCHKEY_OUTPUT"] = output
            environment["LATCHKEY_GO"] = go
            environment["LATCHKEY_CALLS"] = String(calls)
            environment.merge(setup.environment(now: now)) { _, new in new }
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: output + ".stderr", contents: nil)
            process.standardError = FileHandle(forWritingAtPath: output + ".stderr") ?? FileHandle.nullDevice
            return process
        }
    }
}

func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// The child side: with `LATCHKEY_FLEET_CHILD` set, an instance that opens the shared
/// session, says it is ready (`<output>.ready`), waits for `LATCHKEY_GO` to exist, then
/// makes `LATCHKEY_CALLS` concurrent `accessToken()` calls and writes the tokens, one a
/// line. Without it, this test does nothing.
@Suite struct FleetChildEntry {
    @Test func helper() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["LATCHKEY_FLEET_CHILD"] != nil else { return }
        exitWhenOrphaned()
        let output = environment["LATCHKEY_OUTPUT"] ?? "/dev/null"
        var status: Int32 = 0
        do {
            guard let setup = FleetSetup(environment: environment), let now = environment["LATCHKEY_NOW"].flatMap(Double.init) else {
                throw AuthError(.configuration, "the child's environment is incomplete")
            }
            let database = try setup.database()
            let client = try setup.client(database, now: Date(timeIntervalSince1970: now))
            try await client.start(validating: false)
            try Data("ready".utf8).write(to: URL(fileURLWithPath: output + ".ready"))
            let go = environment["LATCHKEY_GO"] ?? "/"
            while access(go, F_OK) != 0 { try await Task.sleep(for: .milliseconds(1)) }
            let calls = Int(environment["LATCHKEY_CALLS"] ?? "1") ?? 1
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<calls { group.addTask { try await client.accessToken() } }
                var all: [String] = []
                for try await token in group { all.append(token) }
                return all
            }
            try Data(tokens.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: output))
            database.shutdown()
        } catch {
            try? Data("error: \(error)".utf8).write(to: URL(fileURLWithPath: output))
            status = 1
        }
        exit(status)
    }
}
