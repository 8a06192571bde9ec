import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyJWT
import Testing

/// Machine-to-machine tokens from the emulator's `client_credentials` grant: one grant
/// however many callers, renewal from the local clock, every refusal, the secret read
/// only from the environment or a private file.
@Suite struct MachineTokenSourceTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let machine = Auth0Seed.standardMachineClient
    static let api = Auth0Seed.standardAPI.identifier
    static let tokenRoute = EmulatorRoute(.auth0, "POST", "/oauth/token")
    static let secretVariable = "LATCHKEY_TEST_M2M_SECRET"

    private func withAuth0(_ body: (Emulator, Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.auth0))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func source(
        _ auth0: Auth0Endpoint, secret: String = machine.clientSecret, scope: String? = nil, audience: String = api,
        clock: any SessionClock = SystemClock(), transport: any HTTPTransport = URLSessionTransport()
    ) throws -> Auth0MachineTokenSource {
        try Auth0MachineTokenSource(
            domain: auth0.domain, clientID: Self.machine.clientID, clientSecret: .environment(Self.secretVariable),
            audience: audience, scope: scope, baseURL: auth0.baseURL, transport: transport, clock: clock,
            environment: [Self.secretVariable: secret])
    }

    private func grants(_ emulator: Emulator) async -> Int {
        await emulator.control.count(Self.tokenRoute, grant: "client_credentials")
    }

    @Test func aHundredConcurrentCallersShareOneGrant() async throws {
        try await withAuth0 { emulator, auth0 in
            let tokens = try source(auth0)
            let all = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await tokens.token().accessToken } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(all.count == 1)
            #expect(await grants(emulator) == 1)
            let jwt = try JWT.decode(try #require(all.first))
            #expect(jwt.claims["gty"] == "client-credentials")
            #expect(jwt.claims.audience == [Self.api])
        }
    }

    @Test func theTokenIsRenewedOnceBeforeExpiryByTheLocalClock() async throws {
        try await withAuth0 { emulator, auth0 in
            // The server's clock is two hours behind this one: only local time counts.
            let clock = ManualClock(now: Self.start.addingTimeInterval(7_200))
            let tokens = try source(auth0, clock: clock)
            let first = try await tokens.token()
            #expect(first.expiresAt == clock.now.addingTimeInterval(86_400))
            #expect(first.scopes == ["read:messages", "write:messages", "read:reports"])
            clock.advance(by: .seconds(86_400 - 61))
            #expect(try await tokens.token().expiresAt == first.expiresAt)
            #expect(await grants(emulator) == 1)
            // Within the margin (60 s) of expiry, every waiting caller gets one new token.
            clock.advance(by: .seconds(2))
            emulator.control.advanceClock(by: 3_600)
            let renewed = try await withThrowingTaskGroup(of: Auth0MachineTokenSource.Token.self) { group in
                for _ in 0..<20 { group.addTask { try await tokens.token() } }
                return try await group.reduce(into: [Auth0MachineTokenSource.Token]()) { $0.append($1) }
            }
            #expect(Set(renewed.map(\.accessToken)).count == 1)
            #expect(renewed.first?.accessToken != first.accessToken)
            #expect(renewed.first?.expiresAt == clock.now.addingTimeInterval(86_400))
            #expect(await grants(emulator) == 2)
        }
    }

    @Test func refusalsAreClearAndNotRetriedInALoop() async throws {
        try await withAuth0 { emulator, auth0 in
            let wrong = try source(auth0, secret: "not-the-secret")
            let refused = await #expect(throws: AuthError.self) { try await wrong.token() }
            #expect(refused?.code == .configuration)
            #expect(refused?.providerCode == "access_denied")
            #expect(refused?.httpStatus == 401)
            #expect(refused.map { "\($0)".contains("not-the-secret") } == false)
            // Callers in a loop get the same answer from memory, not a request each.
            for _ in 0..<10 { await #expect(throws: AuthError.self) { try await wrong.token() } }
            #expect(await grants(emulator) == 1)

            let beyond = await #expect(throws: AuthError.self) { try await source(auth0, scope: "admin").token() }
            #expect(beyond?.code == .configuration)
            #expect(beyond?.message.contains("Client has not been granted scopes: admin") == true)
            let unknown = await #expect(throws: AuthError.self) { try await source(auth0, audience: "https://unknown.example/").token() }
            #expect(unknown?.code == .configuration)
        }
    }

    @Test func serverFailuresAreRetriedByTheTransportWithBackOff() async throws {
        try await withAuth0 { emulator, auth0 in
            let retrying = RetryingTransport(URLSessionTransport(), policy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20)))
            await emulator.control.inject(EmulatorFault(route: Self.tokenRoute, grant: "client_credentials", kind: .status(503), trigger: .next(1)))
            let tokens = try source(auth0, transport: retrying)
            _ = try await tokens.token()
            #expect(await grants(emulator) == 2)

            // Rate limited for longer than the transport waits (Auth0's reset is a minute
            // away): a rate-limit error with the wait, then no request until it is over.
            await emulator.control.inject(EmulatorFault(route: Self.tokenRoute, grant: "client_credentials", kind: .status(429), trigger: .next(1)))
            let limited = try source(auth0, transport: retrying)
            let error = await #expect(throws: AuthError.self) { try await limited.token() }
            #expect(error?.code == .rateLimited)
            #expect(error?.retryAfter != nil)
            #expect(await grants(emulator) == 3)
            for _ in 0..<5 { await #expect(throws: AuthError.self) { try await limited.token() } }
            #expect(await grants(emulator) == 3)
        }
    }

    @Test func theSecretComesFromTheEnvironmentOrAPrivateFile() async throws {
        try await withAuth0 { emulator, auth0 in
            let missing = #expect(throws: AuthError.self) {
                try Auth0MachineTokenSource(
                    domain: auth0.domain, clientID: Self.machine.clientID, clientSecret: .environment("LATCHKEY_NO_SUCH_VARIABLE"),
                    audience: Self.api, baseURL: auth0.baseURL, environment: [:])
            }
            #expect(missing?.code == .configuration)
            #expect(missing?.message.contains("LATCHKEY_NO_SUCH_VARIABLE") == true)

            let directory = FileManager.default.temporaryDirectory.appending(path: "latchkey-m2m-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appending(path: "secret").path
            try Data((Self.machine.clientSecret + "\n").utf8).write(to: URL(fileURLWithPath: file))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            let readable = #expect(throws: AuthError.self) {
                try Auth0MachineTokenSource(
                    domain: auth0.domain, clientID: Self.machine.clientID, clientSecret: .file(file), audience: Self.api,
                    baseURL: auth0.baseURL)
            }
            #expect(readable?.code == .configuration)
            #expect(readable?.message.contains("chmod 600") == true)
            #expect(readable.map { "\($0)".contains(Self.machine.clientSecret) } == false)

            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            let tokens = try Auth0MachineTokenSource(
                domain: auth0.domain, clientID: Self.machine.clientID, clientSecret: .file(file),
                audience: Self.api, baseURL: auth0.baseURL, transport: URLSessionTransport())
            let token = try await tokens.token()
            #expect(!"\(token)".contains(token.accessToken))
            #expect(await grants(emulator) == 1)
            #expect("\(Auth0MachineTokenSource.SecretSource.file(file))" == "file \(file)")
        }
    }
}
