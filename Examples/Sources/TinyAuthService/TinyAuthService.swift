import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// TinyAuth, served on `127.0.0.1`: the made-up provider the `LatchkeyTinyAuth` adapter
/// speaks to (its wire format is described there). Users are fixed at start; access
/// tokens live `accessTokenLifetime`; refresh tokens rotate, and a spent one is refused.
/// Everything is in memory and ends with ``stop()``.
public final class TinyAuthService: Sendable {
    /// A user the service knows.
    public struct Account: Sendable {
        public var username: String
        public var password: String
        public var name: String
        public var email: String

        public init(username: String, password: String, name: String, email: String) {
            self.username = username
            self.password = password
            self.name = name
            self.email = email
        }
    }

    /// What the service has issued, for the example to show.
    public struct Counts: Sendable {
        public var logins = 0
        public var refreshes = 0
        public var revocations = 0
        public var liveRefreshTokens = 0
    }

    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL
    private let ledger: Ledger
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    private struct ServiceState {
        var accessTokens: [String: (username: String, expiresAt: Date)] = [:]
        var refreshTokens: [String: String] = [:]  // token → username; removed when spent or revoked
        var counts = Counts()
    }

    /// The service's state, shared by the routes.
    private final class Ledger: Sendable {
        let state = Mutex(ServiceState())
    }

    private init(baseURL: URL, ledger: Ledger, group: ServiceGroup, task: Task<Void, Never>) {
        self.baseURL = baseURL
        self.ledger = ledger
        self.group = group
        self.task = task
    }

    /// The counts so far.
    public var counts: Counts {
        ledger.state.withLock { state in
            var counts = state.counts
            counts.liveRefreshTokens = state.refreshTokens.count
            return counts
        }
    }

    /// Starts the service on an ephemeral loopback port and returns once it listens.
    public static func start(accounts: [Account], clientID: String, accessTokenLifetime: Duration) async throws -> TinyAuthService {
        let ledger = Ledger()
        let api = API(
            accounts: Dictionary(accounts.map { ($0.username, $0) }, uniquingKeysWith: { first, _ in first }),
            clientID: clientID, lifetime: accessTokenLifetime, ledger: ledger)
        let router = Router()
        router.post("v1/sessions") { request, context in try await api.login(request, context) }
        router.post("v1/sessions/refresh") { request, context in try await api.refresh(request, context) }
        router.post("v1/sessions/revoke") { request, context in try await api.revoke(request, context) }
        router.get("v1/me") { request, _ in api.me(request) }

        let quiet = Logger(label: "tinyauth", factory: { _ in SwiftLogNoOpLogHandler() })
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: quiet)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: quiet))
        let task = Task {
            try? await group.run()
            continuation.finish()
        }
        var ports = bound.makeAsyncIterator()
        guard let port = await ports.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return TinyAuthService(baseURL: URL(string: "http://127.0.0.1:\(port)/")!, ledger: ledger, group: group, task: task)
    }

    /// Stops listening and waits until the server has stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }

    // MARK: The routes

    private struct API: Sendable {
        let accounts: [String: Account]
        let clientID: String
        let lifetime: Duration
        let ledger: Ledger

        struct LoginBody: Decodable {
            var username: String
            var password: String
        }
        struct RefreshBody: Decodable { var refresh_token: String }
        struct UserBody: Encodable {
            var id: String
            var email: String
            var name: String
        }
        struct SessionBody: Encodable {
            var access_token: String
            var refresh_token: String
            var expires_in: Int
            var user: UserBody
        }

        func login(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
            guard request.headers[.init("X-Client-ID")!] == clientID else { return Self.error(.unauthorized, "unknown_client") }
            let body = try await request.decode(as: LoginBody.self, context: context)
            guard let account = accounts[body.username], account.password == body.password else {
                return Self.error(.unauthorized, "invalid_credentials")
            }
            return issue(for: account) { $0.counts.logins += 1 }
        }

        func refresh(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
            let body = try await request.decode(as: RefreshBody.self, context: context)
            // Rotation: the presented token is spent whatever happens next.
            guard let username = ledger.state.withLock({ $0.refreshTokens.removeValue(forKey: body.refresh_token) }),
                let account = accounts[username]
            else {
                return Self.error(.unauthorized, "invalid_refresh_token")
            }
            return issue(for: account) { $0.counts.refreshes += 1 }
        }

        func revoke(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
            let body = try await request.decode(as: RefreshBody.self, context: context)
            ledger.state.withLock { state in
                guard let username = state.refreshTokens.removeValue(forKey: body.refresh_token) else { return }
                state.accessTokens = state.accessTokens.filter { $0.value.username != username }
                state.counts.revocations += 1
            }
            return Response(status: .noContent)
        }

        func me(_ request: Request) -> Response {
            let presented = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            let username = ledger.state.withLock { state -> String? in
                guard let presented, let entry = state.accessTokens[presented], entry.expiresAt > Date() else { return nil }
                return entry.username
            }
            guard let username, let account = accounts[username] else { return Self.error(.unauthorized, "invalid_access_token") }
            return Self.json(.ok, Self.user(account))
        }

        private func issue(for account: Account, counting: (inout ServiceState) -> Void) -> Response {
            let access = Self.token(), refresh = Self.token()
            let seconds = Int(lifetime.components.seconds)
            ledger.state.withLock { state in
                state.accessTokens[access] = (account.username, Date().addingTimeInterval(TimeInterval(seconds)))
                state.refreshTokens[refresh] = account.username
                counting(&state)
            }
            return Self.json(.ok, SessionBody(access_token: access, refresh_token: refresh, expires_in: seconds, user: Self.user(account)))
        }

        private static func user(_ account: Account) -> UserBody {
            UserBody(id: account.username, email: account.email, name: account.name)
        }

        private static func token() -> String {
            (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }

        private static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
            let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
            return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }

        private static func error(_ status: HTTPResponse.Status, _ code: String) -> Response {
            json(status, ["error": code])
        }
    }
}
