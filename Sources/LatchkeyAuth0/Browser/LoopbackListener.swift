internal import Foundation
internal import Glibc
internal import Synchronization

/// A one-shot HTTP listener on `127.0.0.1` for the browser's redirect (RFC 8252 §7.3).
///
/// It accepts connections on its own thread (never a thread of Swift's small
/// cooperative pool, since it may wait for minutes), answers requests for other paths
/// with 404, and hands the query of the first request for the callback path to
/// ``waitForCallback(page:)``, answering the browser with the page it is given.
/// ``close()`` — or cancelling the waiting task — stops the thread and closes the socket
/// within a tenth of a second.
final class LoopbackListener: Sendable {
    /// The port the listener is bound to.
    let port: UInt16
    private let callbackPath: String
    private let socket: Int32
    private let state = Mutex(State.idle)

    private enum State {
        case idle
        case waiting(CheckedContinuation<[String: String], any Error>)
        case closed
    }

    /// A failure of the listener's socket.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Binds `127.0.0.1:port` (`0`: an ephemeral port) and listens.
    init(port: UInt16, callbackPath: String) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "could not listen on 127.0.0.1:\(port): errno \(code)")
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        socket = fd
        self.port = UInt16(bigEndian: actual.sin_port)
        self.callbackPath = callbackPath
    }

    deinit {
        if case .closed = state.withLock({ $0 }) { return }
        Glibc.close(socket)
    }

    /// Waits for the browser's redirect and returns its query parameters. `page`
    /// writes the HTML the browser shows for them.
    ///
    /// - Throws: `CancellationError` when the task is cancelled or the listener closed.
    func waitForCallback(page: @escaping @Sendable ([String: String]) -> String) async throws -> [String: String] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String: String], any Error>) in
                let started = state.withLock { state -> Bool in
                    guard case .idle = state else { return false }
                    state = .waiting(continuation)
                    return true
                }
                guard started else { return continuation.resume(throwing: CancellationError()) }
                let thread = Thread { [self] in acceptLoop(page: page) }
                thread.name = "latchkey.auth0.loopback"
                thread.start()
            }
        } onCancel: {
            close()
        }
    }

    /// Stops listening; a waiting caller gets `CancellationError`.
    func close() {
        let waiting = state.withLock { state -> CheckedContinuation<[String: String], any Error>? in
            defer { state = .closed }
            switch state {
            case .waiting(let continuation): return continuation
            case .idle:
                Glibc.close(socket)
                return nil
            case .closed: return nil
            }
        }
        // A waiting accept loop sees `.closed` within its poll interval and closes the socket.
        waiting?.resume(throwing: CancellationError())
    }

    private var isClosed: Bool {
        if case .closed = state.withLock({ $0 }) { true } else { false }
    }

    private func acceptLoop(page: @Sendable ([String: String]) -> String) {
        defer { Glibc.close(socket) }
        while !isClosed {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&descriptor, 1, 100)
            guard ready > 0 else { continue }
            let connection = Glibc.accept(socket, nil, nil)
            guard connection >= 0 else { continue }
            defer { Glibc.close(connection) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let target = Self.readRequestTarget(connection) else { continue }
            let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
            guard target[..<pathEnd] == callbackPath else {
                Self.write(connection, status: "404 Not Found", html: "<!doctype html><title>Not found</title><p>Not found.</p>")
                continue
            }
            let query = pathEnd < target.endIndex ? FormBody.decode(target[target.index(after: pathEnd)...]) : [:]
            Self.write(connection, status: "200 OK", html: page(query))
            let waiting = state.withLock { state -> CheckedContinuation<[String: String], any Error>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .closed
                return continuation
            }
            waiting?.resume(returning: query)
            return
        }
    }

    /// The request target of a `GET` (`/callback?code=…`), read up to the end of the
    /// headers (at most 16 KiB); `nil` for anything else.
    private static func readRequestTarget(_ connection: Int32) -> Substring? {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 16_384 {
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[..<count])
            if containsHeaderEnd(buffer) { break }
        }
        let text = String(decoding: buffer, as: UTF8.self)
        guard let line = text.split(separator: "\r\n", maxSplits: 1).first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/") else { return nil }
        return parts[1]
    }

    private static func containsHeaderEnd(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }

    private static func write(_ connection: Int32, status: String, html: String) {
        let body = Array(html.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.send(connection, $0 + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) } ?? -1
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}
