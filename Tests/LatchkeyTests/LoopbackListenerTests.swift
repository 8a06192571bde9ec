import Foundation
import Glibc
import Latchkey
import LatchkeyTestSupport
import Synchronization
import Testing

/// The loopback listener every browser login shares, against what any local process can
/// send it: foreign redirects, an `error=` without the state, connections that never
/// finish, and a port someone else holds.
@Suite struct LoopbackListenerTests {
    private static func redirect() throws -> LoopbackRedirect {
        try LoopbackRedirect(port: RawHTTP.freePort())
    }

    private static func page(_ query: [String: String]) -> String { "<h1 id=\"result\">done</h1>" }

    /// A raw connection to the listener, for what a browser would not do.
    private final class Connection: Sendable {
        let fd: Int32

        init(port: UInt16) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(fd)
                throw WebDriver.Failure(message: "connect failed: errno \(errno)")
            }
            self.fd = fd
        }

        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// Whether the listener has closed its end (a read returns end-of-file or an error now).
        var closedByPeer: Bool {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return false }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
        }

        func close() { Glibc.close(fd) }
    }

    @Test func redirectsWithoutTheStateAreIgnoredUntilTheRightOneComes() async throws {
        let redirect = try Self.redirect()
        let listener = try LoopbackListener(redirect: redirect)
        let waiting = Task { try await listener.waitForCallback(state: "s3cret", page: Self.page) }
        var answers: [String] = []
        for forged in ["?code=stolen&state=forged", "?error=access_denied&error_description=Call+EVIL", "?code=x&state=s3cre", "?state=s3cret2", ""] {
            answers.append(try await Self.eventually { try await RawHTTP.get(URL(string: redirect.absoluteString + forged)!) })
        }
        for answer in answers {
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            #expect(!answer.contains("EVIL"))
        }
        #expect(try await RawHTTP.get(URL(string: "http://127.0.0.1:\(redirect.port)/favicon.ico")!).hasPrefix("HTTP/1.1 404"))
        let right = try await RawHTTP.get(URL(string: redirect.absoluteString + "?error=access_denied&state=s3cret")!)
        #expect(right.hasPrefix("HTTP/1.1 200") && right.contains("done"))
        let query = try await waiting.value
        #expect(query == ["error": "access_denied", "state": "s3cret"])
    }

    /// One connection that never finishes its request stalls only itself: the browser's
    /// redirect on another connection is served while it is still open. (The listener
    /// used to serve one connection at a time, each reading for up to 5 s per byte.)
    @Test func aStalledConnectionDoesNotHoldUpTheRedirect() async throws {
        let redirect = try Self.redirect()
        let listener = try LoopbackListener(redirect: redirect, connectionDeadline: .seconds(600))
        let waiting = Task { try await listener.waitForCallback(state: "s", page: Self.page) }
        let stalled = try await Self.eventually { try Connection(port: redirect.port) }
        defer { stalled.close() }
        #expect(stalled.send("GET /callback?state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        let answer = try await RawHTTP.get(URL(string: redirect.absoluteString + "?code=c&state=s")!)
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(try await waiting.value["code"] == "c")
        #expect(!stalled.closedByPeer)
    }

    /// Every connection has a total deadline: one that trickles a byte at a time is closed
    /// when it passes (a read timeout per byte would keep it open for an hour).
    @Test func aTricklingConnectionIsClosedAtItsDeadline() async throws {
        let redirect = try Self.redirect()
        let listener = try LoopbackListener(redirect: redirect, connectionDeadline: .seconds(1))
        defer { listener.close() }
        let waiting = Task { try await listener.waitForCallback(state: "s", page: Self.page) }
        defer { waiting.cancel() }
        let trickler = try await Self.eventually { try Connection(port: redirect.port) }
        defer { trickler.close() }
        var closed = false
        for byte in String(repeating: "GET /callback?state=x ", count: 100) where !closed {
            closed = !trickler.send(String(byte)) || trickler.closedByPeer
            if !closed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(closed)
    }

    @Test func aPortAnotherProgramHoldsIsAnErrorNamingIt() throws {
        let redirect = try Self.redirect()
        let squatter = try SocketSquatter(port: redirect.port)
        defer { squatter.close() }
        let error = #expect(throws: AuthError.self) { try LoopbackListener(redirect: redirect) }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "callback_port_in_use")
        #expect(error?.message.contains("port \(redirect.port)") == true)
        #expect(error?.message.contains(redirect.absoluteString) == true)
    }

    /// A login right after another binds the same fixed port.
    @Test func theListenerClosesAndRebindsItsFixedPort() async throws {
        let redirect = try Self.redirect()
        for round in 0..<3 {
            let listener = try LoopbackListener(redirect: redirect)
            let waiting = Task { try await listener.waitForCallback(state: "s\(round)", page: Self.page) }
            _ = try await Self.eventually { try await RawHTTP.get(URL(string: redirect.absoluteString + "?code=c&state=s\(round)")!) }
            #expect(try await waiting.value["state"] == "s\(round)")
            // What `run` does before it returns: the port is free for the next login at once.
            await listener.closeAndWait()
        }
    }

    @Test(arguments: [
        "http://localhost:53682/callback", "http://127.0.0.1/callback", "http://127.0.0.1:0/callback", "https://127.0.0.1:1/callback",
        "http://127.0.0.1:53682/callback?x=1", "http://127.0.0.1:53682/callback#f", "http://[::1]:53682/callback",
        "http://127.0.0.1:53682/call%20back", "http://user@127.0.0.1:53682/callback",
    ])
    func aRedirectOtherThanAFixedLoopbackPortIsRefused(_ text: String) {
        #expect(throws: AuthError.self) { try LoopbackRedirect(text) }
    }

    @Test func aLoopbackRedirectParses() throws {
        let redirect = try LoopbackRedirect("http://127.0.0.1:53682/oauth/callback")
        #expect(redirect.port == 53682 && redirect.path == "/oauth/callback")
        #expect(redirect.absoluteString == "http://127.0.0.1:53682/oauth/callback")
        #expect(try LoopbackRedirect(port: 8080, path: "cb").absoluteString == "http://127.0.0.1:8080/cb")
    }

    /// Retries `body` while the listener's thread is starting (a refused connection).
    private static func eventually<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var last: (any Error)?
        for _ in 0..<200 {
            do { return try await body() } catch { last = error }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw last ?? CancellationError()
    }
}
