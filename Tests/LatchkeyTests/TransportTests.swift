import Foundation
import Glibc
import Latchkey
import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import Synchronization
import Testing

/// A one-connection-at-a-time HTTP server on 127.0.0.1 that answers each connection
/// with the next scripted raw reply: a real socket, real bytes, for the transport's
/// failure paths.
final class LoopbackServer: Sendable {
    enum Reply: Sendable {
        case raw(String)
        case close
        case stall
        /// The default answer, after a pause.
        case slow(TimeInterval)
    }

    let port: UInt16
    private let socket: Int32
    private let replies: Mutex<[Reply]>
    let connections = Atomic<Int>(0)

    init(_ replies: [Reply]) throws {
        self.replies = Mutex(replies)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        socket = fd
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/path?secret=1")! }

    private func serve() {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return }
            connections.add(1, ordering: .relaxed)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = read(client, &buffer, buffer.count)
            let reply = replies.withLock {
                $0.isEmpty ? Reply.raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok") : $0.removeFirst()
            }
            switch reply {
            case .raw(let text):
                _ = text.withCString { write(client, $0, strlen($0)) }
                close(client)
            case .close:
                close(client)
            case .slow(let pause):
                Thread.sleep(forTimeInterval: pause)
                let text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                _ = text.withCString { write(client, $0, strlen($0)) }
                close(client)
            case .stall:
                // Keep the connection open without answering; the client times out.
                Thread.sleep(forTimeInterval: 3)
                close(client)
            }
        }
    }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    static func status(_ code: Int, _ reason: String, headers: String = "", body: String = "") -> Reply {
        .raw("HTTP/1.1 \(code) \(reason)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\(headers)\r\n\(body)")
    }
}

/// Counts calls from any thread.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// 1 on the first call, then 2, …
    func next() -> Int { count.add(1, ordering: .relaxed).newValue }
}

/// Both transports (URLSession and AsyncHTTPClient) and the retrying transport on each,
/// against a real socket: one contract, one suite.
@Suite struct TransportTests {
    @Test(arguments: TestTransport.allCases)
    func aResponseComesBackWithStatusHeadersAndBody(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([LoopbackServer.status(201, "Created", headers: "X-Thing: yes\r\n", body: "{\"a\":1}")])
        defer { server.stop() }
        let response = try await kind.make().send(TransportRequest(method: "POST", url: server.url, body: Data("{}".utf8)))
        #expect(response.status == 201)
        #expect(response.headers["x-thing"] == "yes")
        #expect(response.body == Data("{\"a\":1}".utf8))
    }

    @Test(arguments: TestTransport.allCases)
    func aSubSecondTimeoutWaitsItsWholeTime(transport kind: TestTransport) async throws {
        // FoundationNetworking rounds a request's own timeout down to whole seconds: a
        // 500 ms timeout must still let a quick answer through (a timeout rounded down to
        // zero would refuse it), and stop a 3 s one. (A 900 ms answer got through when the
        // machine was loaded, as on CI beside other groups: the timer fired 400 ms late.)
        let server = try LoopbackServer([.slow(0.05), .slow(3)])
        defer { server.stop() }
        let fast = try await kind.make().send(TransportRequest(url: server.url, timeout: .milliseconds(500)))
        #expect(fast.status == 200)
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportError.self) {
            _ = try await kind.make().send(TransportRequest(url: server.url, timeout: .milliseconds(500)))
        }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(450))
    }

    @Test(arguments: TestTransport.allCases)
    func aCancelledCallerReturnsAtOnceAndTheTransportKeepsWorking(transport kind: TestTransport) async throws {
        // The exchange is abandoned, not cancelled (cancelling URLSession.data(for:) as it
        // completes can deadlock FoundationNetworking): the caller is released at once.
        let server = try LoopbackServer([.stall, .slow(0.05)])
        defer { server.stop() }
        let transport = kind.make()
        let call = Task { try await transport.send(TransportRequest(url: server.url, timeout: .seconds(10))) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(ContinuousClock.now - started < .seconds(2))
        // The server answers one connection at a time and is still stalled on the first.
        #expect(try await transport.send(TransportRequest(url: server.url, timeout: .seconds(15))).status == 200)
    }

    @Test(arguments: TestTransport.allCases)
    func aStalledServerTimesOut(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([.stall])
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            _ = try await kind.make().send(TransportRequest(url: server.url, timeout: .milliseconds(300)))
        }
        #expect(error?.code == .timedOut)
        #expect(error.map { "\($0)" }?.contains("secret") == false, "no query string in the error")
    }

    @Test(arguments: TestTransport.allCases)
    func aDroppedConnectionAndARefusedPortAreTransportErrors(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([.close])
        defer { server.stop() }
        await #expect(throws: TransportError.self) { _ = try await kind.make().send(TransportRequest(url: server.url, timeout: .seconds(5))) }
        let refused = try LoopbackServer([])
        let url = refused.url
        refused.stop()
        let error = await #expect(throws: TransportError.self) { _ = try await kind.make().send(TransportRequest(url: url, timeout: .seconds(5))) }
        #expect(error?.code == .cannotConnect)
    }

    @Test(arguments: TestTransport.allCases)
    func a5xxOnAnIdempotentRequestIsRetriedWithBackoff(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([LoopbackServer.status(503, "Unavailable"), LoopbackServer.status(502, "Bad Gateway")])
        defer { server.stop() }
        let clock = ManualClock()
        let transport = RetryingTransport(kind.make(), policy: RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1)), clock: clock)
        let task = Task { try await transport.send(TransportRequest(url: server.url, timeout: .seconds(5))) }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            let wait = try #require(clock.nextDeadline).timeIntervalSince(clock.now)
            #expect(wait > 0 && wait <= 8)
            clock.advance(by: .seconds(8))
        }
        #expect(try await task.value.status == 200)
        #expect(server.connections.load(ordering: .relaxed) == 3)
    }

    @Test(arguments: TestTransport.allCases)
    func aPOSTIsNotRetried(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([LoopbackServer.status(503, "Unavailable")])
        defer { server.stop() }
        let transport = RetryingTransport(kind.make(), clock: ManualClock())
        let response = try await transport.send(TransportRequest(method: "POST", url: server.url, timeout: .seconds(5)))
        #expect(response.status == 503)
        #expect(server.connections.load(ordering: .relaxed) == 1)
    }

    @Test(arguments: TestTransport.allCases)
    func aRequestMarkedIdempotentIsRetriedWithItsBody(transport kind: TestTransport) async throws {
        // libcurl once resent a retried POST without its body; the body must go again, whole.
        let answered = CallCounter()
        let server = try HostileHTTPServer { _ in
            answered.next() == 1 ? HostileHTTPServer.json(503, "{}") : HostileHTTPServer.json(200, "{}")
        }
        defer { server.stop() }
        let body = Data(#"{"grant_type":"client_credentials","n":"\#(String(repeating: "x", count: 3000))"}"#.utf8)
        let transport = RetryingTransport(kind.make(), policy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5)))
        let response = try await transport.send(
            TransportRequest(
                method: "POST", url: server.url, body: body, timeout: .seconds(10),
                isIdempotent: true))
        #expect(response.status == 200)
        #expect(server.requests.count == 2)
        for request in server.requests {
            #expect(request.method == "POST")
            #expect(request.body == Array(body))
        }
    }

    @Test(arguments: TestTransport.allCases)
    func retryAfterIsHonouredOn429(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([
            LoopbackServer.status(
                429, "Too Many Requests", headers: "Retry-After: 5\r\n",
                body: #"{"error":"too_many_requests"}"#)
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let transport = RetryingTransport(kind.make(), policy: RetryPolicy(baseDelay: .milliseconds(100)), clock: clock)
        let task = Task { try await transport.send(TransportRequest(url: server.url, timeout: .seconds(5))) }
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline?.timeIntervalSince(clock.now) == 5)
        clock.advance(by: .seconds(5))
        #expect(try await task.value.status == 200)
    }

    @Test(arguments: TestTransport.allCases)
    func aRetryAfterLongerThanTheCapIsReturnedToTheCaller(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([LoopbackServer.status(429, "Too Many Requests", headers: "Retry-After: 3600\r\n")])
        defer { server.stop() }
        let response = try await RetryingTransport(kind.make(), clock: ManualClock()).send(TransportRequest(url: server.url, timeout: .seconds(5)))
        #expect(response.status == 429)
        #expect(response.retryAfter == .seconds(3600))
    }

    @Test(arguments: TestTransport.allCases)
    func aMalformedReplyIsAnError(transport kind: TestTransport) async throws {
        let server = try LoopbackServer([.raw("this is not HTTP at all\r\n\r\n")])
        defer { server.stop() }
        await #expect(throws: (any Error).self) { _ = try await kind.make().send(TransportRequest(url: server.url, timeout: .seconds(5))) }
    }

    @Test func jitteredBackoffGrowsAndIsCapped() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0.5)
        #expect(policy.delay(afterAttempt: 1, random: 0) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 1, random: 0.999_999) < .seconds(1) + .milliseconds(1))
        #expect(policy.delay(afterAttempt: 3, random: 1) == .seconds(4))
        #expect(policy.delay(afterAttempt: 9, random: 1) == .seconds(8))
    }
}
