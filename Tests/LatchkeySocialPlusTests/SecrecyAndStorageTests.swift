import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import LatchkeySecrets
import LatchkeySocialPlus
import Synchronization
import Testing

/// No secret reaches a log line or an error; a store that cannot keep the device ID
/// stops a login before any request; tokens from elsewhere hydrate a session.
@Suite struct SecrecyAndStorageTests {
    @Test func noSecretReachesTheLogsOrTheErrors() async throws {
        try await SocialPlusHarness.run(secure: true, options: SessionOptions(heartbeatInterval: .seconds(180))) { harness in
            try harness.provider.register(sessionHandler: ClosureSessionHandler { .renewWithAuthToken(try await harness.mintAuthToken($0)) })
            try await harness.client.start()
            let authToken = try await harness.mintAuthToken()
            try await harness.login(authToken: authToken)
            await harness.clock.waitForSleepers(3)
            await harness.advance(by: 180)
            await harness.advance(by: 2460)
            await settle("renewed") { await harness.logins() == 2 }
            await harness.emulator.control.inject(EmulatorFault(route: SocialPlusHarness.logoutRoute, kind: .status(503)))
            let failed = await authError { try await harness.client.logout(revoke: .required) }
            try await harness.client.logout(revoke: .required)
            let secure = await authError { try await harness.login() }

            var secrets = [harness.endpoint.apiKey, harness.endpoint.serverKey, authToken]
            for request in harness.transport.requests {
                if let bearer = request.headers["Authorization"] { secrets.append(String(bearer.dropFirst("Bearer ".count))) }
                if let token = request.body.flatMap({ try? JSONValue.parse(bytes: Array($0)) })?["authToken"]?.stringValue { secrets.append(token) }
            }
            #expect(secrets.count >= 6)
            let text =
                harness.logs.all.joined(separator: "\n")
                + "\(failed.map(String.init(describing:)) ?? "")\(secure.map(String.init(describing:)) ?? "")"
            #expect(harness.logs.all.count > 10)
            for secret in secrets { #expect(!text.contains(secret), "a secret leaked") }
        }
    }

    @Test func aStoreThatCannotKeepTheDeviceIDStopsTheLoginBeforeAnyRequest() async throws {
        try await SocialPlusHarness.run { harness in
            let store = try RefusingStore()
            let client = try harness.restarted(store: store)
            try await client.start()
            store.refuses.withLock { $0 = true }
            let error = await authError { try await client.login(SocialPlusLogin(userID: "alice")) }
            #expect(error?.code == .storage)
            #expect(await harness.logins() == 0)
            #expect(client.state == .notLoggedIn)
            store.refuses.withLock { $0 = false }
            try await client.login(SocialPlusLogin(userID: "alice"))
            #expect(client.state == .established)
            await client.shutdown()
        }
    }

    @Test func tokensFromElsewhereAreCheckedAndHydrateTheSession() async throws {
        try await SocialPlusHarness.run { harness in
            let login = try await URLSessionTransport().send(
                TransportRequest(
                    method: "POST", url: harness.endpoint.baseURL.appending(path: "api/v5/sessions"),
                    headers: ["Content-Type": "application/json", "X-API-Key": harness.endpoint.apiKey],
                    body: Data(#"{"userId":"bob","deviceId":"elsewhere","deviceInfo":{"kind":"web","sdkVersion":"x"}}"#.utf8)))
            let token = try #require(try JSONValue.parse(bytes: Array(login.body))["accessToken"]?.stringValue)
            try await harness.client.start()
            let incomplete = await authError { try await harness.client.update(tokens: SessionTokens(accessToken: token)) }
            #expect(incomplete?.code == .invalidArgument)
            try await harness.client.update(tokens: SessionTokens(accessToken: token, attributes: ["user_id": "bob"]))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.name == "Bob")
        }
    }
}

/// A memory store that refuses every read and write while ``refuses`` is set.
final class RefusingStore: SecretStore {
    let base: MemorySecretStore
    let refuses = Mutex(false)

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the store refused (EACCES)" }
    }

    init() throws { base = try MemorySecretStore(namespace: "refusing") }

    var namespace: String { base.namespace }
    var backendName: String { "refusing" }

    private func check() throws { if refuses.withLock({ $0 }) { throw Refused() } }

    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try check()
        return try await base.get(name)
    }

    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try check()
        try await base.set(name, value)
    }

    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool { try await base.remove(name) }
    nonisolated(nonsending) func removeAll() async throws { try await base.removeAll() }
    nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }

    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await base.withExclusiveLock(body)
    }
}
