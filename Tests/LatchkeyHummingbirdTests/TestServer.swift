import Foundation
import Hummingbird
import HummingbirdAuth
import Latchkey
import LatchkeyEmulator
import LatchkeyHummingbird
import Logging
import NIOCore
import ServiceLifecycle

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app under test's context: hummingbird-auth's, with the verified token as identity.
typealias AppContext = BasicAuthRequestContext<VerifiedToken>

/// A Hummingbird app on 127.0.0.1, an ephemeral port, in a service group that stops it.
final class TestServer: Sendable {
    let url: URL
    private let task: Task<Void, Never>
    private let group: ServiceGroup

    private init(url: URL, task: Task<Void, Never>, group: ServiceGroup) {
        self.url = url
        self.task = task
        self.group = group
    }

    static func start(
        _ router: Router<AppContext>, logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> TestServer {
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: logger))
        let task = Task {
            try? await group.run()
            continuation.finish()
        }
        var iterator = bound.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)/") else {
            task.cancel()
            throw TestFailure("the app did not start")
        }
        return TestServer(url: url, task: task, group: group)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The emulator's clock, as the verifiers' clock: tokens expire when the test advances it.
struct EmulatorTime: SessionClock {
    let emulator: Emulator
    var now: Date { emulator.control.now }
    func sleep(until deadline: Date) async throws {
        while now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// A small HTTP client over URLSession (no redirects, no cookies, no cache).
struct Client: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    static let shared = Client()
    let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    func send(_ method: String = "GET", _ url: URL, headers: [String: String] = [:], body: Data? = nil) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue(headers["Content-Type"] ?? "application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestFailure("not an HTTP response") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self))
    }

    func get(_ url: URL, bearer: String) async throws -> Reply {
        try await send(url, headers: ["Authorization": "Bearer " + bearer])
    }

    func send(_ url: URL, headers: [String: String]) async throws -> Reply {
        try await send("GET", url, headers: headers)
    }
}
