import Benchmark
import BenchmarkSupport
import Foundation
import Latchkey
import LatchkeySecrets
import Synchronization

// The session core's hot paths: `accessToken()` on a fresh token, the overhead `send`
// adds over the bare transport, a cold start with a stored session (the local part:
// vault load and decode, the provider answering in-process), and 1,000 concurrent
// callers on an expired token (time until all are served; exactly one renewal); and
// a `SessionHost` loading 10,000 users' sessions (HostBenchmarks.swift).

let benchmarks: @Sendable () -> Void = {
    let batched = Suite.configuration(scale: .kilo)
    let single = Suite.configuration()

    Benchmark(Suite.name("Session", ["accessToken", "fresh"], .latchkey), configuration: batched) { benchmark in
        let client = try await loggedInClient(lifetime: 3600)
        try await benchmark.measure { blackHole(try await client.accessToken()) }
        await client.shutdown()
    }

    // `send` against an in-process transport, beside that transport called directly
    // with the same request already carrying its Authorization header.
    Benchmark(Suite.name("Session", ["send"], .latchkey), configuration: batched) { benchmark in
        let client = try await loggedInClient(lifetime: 3600)
        let request = TransportRequest(url: URL(string: "https://api.example.com/items")!)
        try await benchmark.measure { blackHole(try await client.send(request)) }
        await client.shutdown()
    }
    Benchmark(Suite.name("Session", ["send"], .limit("bare-transport")), configuration: batched) { benchmark in
        let transport = StaticTransport()
        var request = TransportRequest(url: URL(string: "https://api.example.com/items")!)
        request.headers["Authorization"] = "Bearer \(InProcessProvider.token(1))"
        try await benchmark.measure { blackHole(try await transport.send(request)) }
    }

    // The same over real HTTP: an app API on 127.0.0.1 (Hummingbird), `send` through
    // URLSessionTransport beside URLSessionTransport called directly with the header
    // already set. This is the overhead an app sees (the target: under 5%).
    Benchmark(Suite.name("Session", ["send", "loopback"], .latchkey), configuration: single) { benchmark in
        let api = try await LoopbackAPI.shared()
        let client = try await loggedInClient(lifetime: 3600, transport: URLSessionTransport())
        let request = TransportRequest(url: api.itemsURL)
        try await benchmark.measure {
            let response = try await client.send(request)
            guard response.status == 200 else { fixtureFailure("status \(response.status)") }
        }
        await client.shutdown()
    }
    Benchmark(Suite.name("Session", ["send", "loopback"], .limit("URLSession")), configuration: single) { benchmark in
        let api = try await LoopbackAPI.shared()
        let transport = URLSessionTransport()
        var request = TransportRequest(url: api.itemsURL)
        request.headers["Authorization"] = "Bearer \(InProcessProvider.token(1))"
        try await benchmark.measure {
            let response = try await transport.send(request)
            guard response.status == 200 else { fixtureFailure("status \(response.status)") }
        }
    }

    // A new client over a store holding a session: load, decode, validate (in-process),
    // publish, reach `established`.
    Benchmark(Suite.name("Session", ["coldStart"], .latchkey), configuration: single) { benchmark in
        let store = try MemorySecretStore(namespace: "bench-cold")
        let seeding = try await loggedInClient(lifetime: 3600, store: store)
        await seeding.shutdown()
        var client: AuthClient?
        for _ in benchmark.scaledIterations {
            try await benchmark.measureOnce(prepare: {
                client = AuthClient(provider: InProcessProvider(), store: store, options: quietOptions, transport: StaticTransport())
            }) {
                try await client!.start()
            }
            guard client?.state == .established else { fixtureFailure("cold start did not reach established") }
            await client?.shutdown()
        }
    }

    // 1,000 callers at once on an expired token: the time until every one is served.
    Benchmark(
        Suite.name("Session", ["expired1000"], .latchkey),
        configuration: Suite.configuration(warmup: 1, extraMetrics: [.custom("renewals")])
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let provider = InProcessProvider()
            var client: AuthClient?
            try await benchmark.measureOnce(prepare: {
                client = try await loggedInClient(lifetime: -1, provider: provider)
            }) {
                let shared = client!
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<1000 { group.addTask { blackHole(try await shared.accessToken()) } }
                    try await group.waitForAll()
                }
            }
            let renewals = provider.renewals.load(ordering: .relaxed)
            guard renewals == 1 else { fixtureFailure("1,000 callers made \(renewals) renewals") }
            benchmark.measurement(.custom("renewals"), renewals)
            await client?.shutdown()
        }
    }

    registerHostBenchmarks()
}

let quietOptions = SessionOptions(heartbeatInterval: nil, renewsProactively: false)

func loggedInClient(
    lifetime: TimeInterval, store: (any SecretStore)? = nil,
    provider: InProcessProvider = InProcessProvider(),
    transport: any HTTPTransport = StaticTransport()
) async throws -> AuthClient {
    provider.lifetime.store(lifetime, ordering: .relaxed)
    let client = AuthClient(
        provider: provider, store: try store ?? MemorySecretStore(namespace: "bench-\(UInt32.random(in: 0 ... .max))"),
        options: quietOptions, transport: transport)
    try await client.start()
    try await client.login(BenchCredentials())
    return client
}

struct BenchCredentials: LoginCredentials {}

/// A provider that answers at once: the cost measured is the client's own.
final class InProcessProvider: AuthProvider {
    let identifier = "bench"
    let renewals = Atomic<Int>(0)
    let lifetime = Atomic<Double>(3600)

    static func token(_ n: Int) -> String { "eyJhbGciOiJSUzI1NiJ9.access-token-\(n).c2lnbmF0dXJl" }

    private func report(_ n: Int) -> AuthenticatedSession {
        let now = Date()
        let tokens = SessionTokens(
            accessToken: Self.token(n), refreshToken: "refresh-\(n)", issuedAt: now,
            expiresAt: now.addingTimeInterval(n == 1 ? lifetime.load(ordering: .relaxed) : 3600))
        return AuthenticatedSession(
            tokens: tokens,
            session: Session(id: "session-1", userID: "user-1", startedAt: now, expiresAt: now.addingTimeInterval(86_400)),
            user: User(id: "user-1", email: "user@example.com", name: "Bench User"))
    }

    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        report(1)
    }
    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession { AuthenticatedSession(tokens: current.tokens) }
    func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        report(renewals.add(1, ordering: .relaxed).newValue + 1)
    }
    func revoke(_ current: AuthenticatedSession) async throws {}
}

/// An in-process transport answering 200 with a fixed body.
struct StaticTransport: HTTPTransport {
    let response = TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"items":[]}"#.utf8))
    func send(_ request: TransportRequest) async throws -> TransportResponse { response }
}
