import AsyncHTTPClient
import Foundation
import Glibc
import Latchkey
import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import LatchkeyAsyncHTTPClient

/// What only the AsyncHTTPClient transport has: a client it owns or borrows, a client
/// configured to follow redirects, decoding within the cap, and NIO's errors. The
/// contract both transports share runs in LatchkeyTests (`TransportTests`,
/// `HostileAnswerTests`), once per transport.
@Suite struct AsyncHTTPClientTransportTests {
    @Test func anOwnedClientIsShutDownWhenTheScopeEnds() async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, #"{"ok":true}"#) }
        defer { server.stop() }
        let kept = try await AsyncHTTPClientTransport.withTransport { transport -> AsyncHTTPClientTransport in
            let status = try await transport.send(TransportRequest(url: server.url)).status
            #expect(status == 200)
            return transport
        }
        let error = await #expect(throws: TransportError.self) { _ = try await kept.send(TransportRequest(url: server.url)) }
        #expect(error?.code == .other)
        #expect(error?.message.contains("alreadyShutdown") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func anOwnedClientIsShutDownWhenTheScopeThrows() async throws {
        struct Stop: Error {}
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        defer { server.stop() }
        var kept: AsyncHTTPClientTransport?
        do {
            _ = try await AsyncHTTPClientTransport.withTransport { transport -> Int in
                kept = transport
                throw Stop()
            }
            Issue.record("the scope's error was not rethrown")
        } catch is Stop {}
        let transport = try #require(kept)
        await #expect(throws: TransportError.self) { _ = try await transport.send(TransportRequest(url: server.url)) }
    }

    @Test func theAppsClientIsNeverShutDownByTheTransport() async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(client: TestTransport.sharedClient)
        try await transport.shutdown()
        #expect(try await transport.send(TransportRequest(url: server.url)).status == 200)
    }

    /// A client made with AsyncHTTPClient's defaults follows redirects: the transport
    /// still fails with `redirected`, and a request body never goes to the target.
    @Test(arguments: [301, 302, 307, 308])
    func aClientThatFollowsRedirectsStillNeverResendsTheBody(status: Int) async throws {
        let destination = try HostileHTTPServer(host: "127.0.0.2") { _ in HostileHTTPServer.json(200, #"{"stolen": true}"#) }
        defer { destination.stop() }
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(status, headers: ["Location: \(destination.url.absoluteString)collect"]) }
        defer { server.stop() }
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport -> Void in
            let request = TransportRequest(
                method: "POST", url: server.url.appending(path: "oauth/token"),
                headers: ["Authorization": "Basic c2VjcmV0"], body: Data(#"{"refresh_token":"secret-rt"}"#.utf8),
                timeout: .seconds(20))
            let error = await #expect(throws: TransportError.self) { _ = try await transport.send(request) }
            #expect(error?.code == .redirected)
        }
        #expect(
            destination.requests.allSatisfy { $0.body.isEmpty && $0.header("Authorization") == nil },
            "neither the body nor the credentials reached the redirect's target")
    }

    @Test func aGETRedirectFollowedByTheClientIsStillAnError() async throws {
        let destination = try HostileHTTPServer(host: "127.0.0.2") { _ in HostileHTTPServer.json(200, "{}") }
        defer { destination.stop() }
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(302, headers: ["Location: \(destination.url.absoluteString)"]) }
        defer { server.stop() }
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport -> Void in
            let error = await #expect(throws: TransportError.self) {
                _ = try await transport.send(TransportRequest(url: server.url, headers: ["Authorization": "Bearer secret-at"], timeout: .seconds(20)))
            }
            #expect(error?.code == .redirected)
            #expect(error?.message.contains("redirectConfiguration") == true, "says how to fix the client")
        }
        #expect(destination.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func aGzipAnswerIsDecoded() async throws {
        let gzipped = try HostileHTTPServer.gzippedZeros(count: 5000)
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(200, headers: ["Content-Encoding: gzip"], body: gzipped) }
        defer { server.stop() }
        let response = try await TestTransport.asyncHTTPClient.make().send(TransportRequest(url: server.url, timeout: .seconds(20)))
        #expect(response.body == Data(count: 5000))
    }

    @Test func aDecodedAnswerOverTheCapIsTooLarge() async throws {
        let gzipped = try HostileHTTPServer.gzippedZeros(count: 5000)
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(200, headers: ["Content-Encoding: gzip"], body: gzipped) }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            _ = try await TestTransport.asyncHTTPClient.make(maximumResponseSize: 4999).send(TransportRequest(url: server.url, timeout: .seconds(20)))
        }
        #expect(error?.code == .tooLarge)
    }

    @Test func aBodyThatIsNotTheGzipItClaimsIsAnInvalidResponse() async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(200, headers: ["Content-Encoding: gzip"], body: Array("{\"a\":1}".utf8)) }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            _ = try await TestTransport.asyncHTTPClient.make().send(TransportRequest(url: server.url, timeout: .seconds(20)))
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test func aTLSFailureIsATransportError() async throws {
        // An https request to a server that answers in plain HTTP: the handshake fails.
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        defer { server.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/token?code=secret-code"))
        let error = await #expect(throws: TransportError.self) {
            _ = try await TestTransport.asyncHTTPClient.make().send(TransportRequest(url: url, timeout: .seconds(20)))
        }
        // This server waits for a request line the ClientHello never gives it, so which end
        // gives up first depends on timing: AHC's handshake timeout (`timedOut`), or a TLS
        // error when the server's idle timeout answers first. Either way a transport error
        // naming no secret; the TLS errors' own mapping is checked by the table below.
        #expect(
            error?.code == .timedOut || (error?.code == .other && error?.message.hasPrefix("TLS") == true),
            "\(error.map { "\($0)" } ?? "")")
        #expect(error.map { "\($0)" }?.contains("secret-code") == false)
    }

    static let mapped: [(any Error & Sendable, TransportError.Code)] = [
        (HTTPClientError.deadlineExceeded, .timedOut), (HTTPClientError.readTimeout, .timedOut),
        (HTTPClientError.connectTimeout, .timedOut), (HTTPClientError.tlsHandshakeTimeout, .timedOut),
        (HTTPClientError.remoteConnectionClosed, .connectionLost), (HTTPClientError.invalidURL, .other),
        (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .cannotConnect),
        (IOError(errnoCode: ECONNRESET, reason: "read"), .connectionLost),
        (ChannelError.connectTimeout(.seconds(1)), .timedOut), (ChannelError.eof, .connectionLost),
        (NIOSSLError.handshakeFailed(.syscallError), .other),
    ]

    @Test(arguments: 0..<mapped.count)
    func nioErrorsBecomeTheCoresCodes(index: Int) {
        let (error, code) = Self.mapped[index]
        let result = AsyncHTTPClientErrors.transportError(error, request: "GET http://127.0.0.1/x", timeout: .seconds(1))
        #expect((result as? TransportError)?.code == code, "\(error) became \(result)")
    }

    @Test func aCancelledRequestIsACancellationError() {
        let result = AsyncHTTPClientErrors.transportError(HTTPClientError.cancelled, request: "GET http://127.0.0.1/x", timeout: .seconds(1))
        #expect(result is CancellationError)
    }

    @Test func aHugeTimeoutNeverTraps() {
        #expect(AsyncHTTPClientTransport.nanoseconds(.seconds(Int64.max)) == .max)
        #expect(AsyncHTTPClientTransport.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(AsyncHTTPClientTransport.nanoseconds(.seconds(-5)) == 0)
    }
}
