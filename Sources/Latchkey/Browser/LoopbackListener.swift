package import Foundation
internal import Glibc
internal import LatchkeyCrypto
internal import Synchronization

/// The HTTP listener on `127.0.0.1` that receives a browser login's redirect (RFC 8252
/// §7.3), shared by every adapter with a browser login.
///
/// Any local process can connect to a loopback port, so the listener trusts nothing it
/// receives until the `state` matches:
/// - a request for the callback path without the login's `state` is answered with a
///   neutral page and ignored: the login keeps waiting (a forged or stale redirect
///   neither ends it nor shows its text);
/// - `state` is checked before anything else in the query, so an `error=` from a
///   stranger is never reported as the provider's;
/// - every connection is served on its own thread with a total deadline (reading the
///   request, writing the answer), so a connection that sends slowly or not at all
///   stalls only itself; at most ``maximumConnections`` are served at once.
///
/// ``close()``, the first matching redirect, or cancelling the waiting task stops the
/// listener and closes its socket within a tenth of a second.
package final class LoopbackListener: Sendable {
    /// The redirect the listener serves.
    package let redirect: LoopbackRedirect
    /// The longest a connection may take, from accept to the last byte of the answer.
    package let connectionDeadline: Duration
    /// Connections served at once; more are closed unanswered until one finishes.
    package static let maximumConnections = 32

    private let socket: Int32
    private let state = Mutex(State.idle)
    private let activeConnections = Atomic<Int>(0)
    /// Whether the listening socket is closed (the port free again), and who waits for it.
    private let released = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    private struct Waiter: Sendable {
        var continuation: CheckedContinuation<[String: String], any Error>
        var expectedState: String
        var page: @Sendable ([String: String]) -> String
    }

    private enum State {
        case idle
        case waiting(Waiter)
        case closed
    }

    /// Binds `127.0.0.1` on the redirect's port and listens.
    ///
    /// - Throws: ``AuthError/Code/configuration`` (`callback_port_in_use`) naming the
    ///   port when another program holds it; ``AuthError/Code/transient`` for other
    ///   socket failures.
    package init(redirect: LoopbackRedirect, connectionDeadline: Duration = .seconds(10)) throws(AuthError) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw AuthError(.transient, "the loopback listener could not open a socket (errno \(errno))") }
        // A previous login's connections may linger in TIME_WAIT on the fixed port; without
        // this the next login within a minute could not bind it. (A port another socket
        // listens on still refuses the bind.)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = redirect.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let code = errno
            Glibc.close(fd)
            if code == EADDRINUSE {
                throw AuthError(
                    .configuration,
                    "port \(redirect.port) on 127.0.0.1 is in use by another program, so the browser login cannot receive its redirect to \(redirect); close that program, or choose another port and register its URL with the provider",
                    providerCode: "callback_port_in_use")
            }
            throw AuthError(.transient, "the loopback listener could not listen on 127.0.0.1:\(redirect.port) (errno \(code))")
        }
        socket = fd
        self.redirect = redirect
        self.connectionDeadline = connectionDeadline
    }

    deinit {
        releaseSocket()
    }

    /// Waits for the browser's redirect carrying `state` and returns its query
    /// parameters; `page` writes the HTML the browser shows for them.
    ///
    /// - Throws: `CancellationError` when the task is cancelled or the listener closed.
    package func waitForCallback(
        state expected: String,
        page: @escaping @Sendable ([String: String]) -> String
    ) async throws -> [String: String] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String: String], any Error>) in
                let started = state.withLock { state -> Bool in
                    guard case .idle = state else { return false }
                    state = .waiting(Waiter(continuation: continuation, expectedState: expected, page: page))
                    return true
                }
                guard started else { return continuation.resume(throwing: CancellationError()) }
                let thread = Thread { [self] in acceptLoop() }
                thread.name = "latchkey.loopback"
                thread.start()
            }
        } onCancel: {
            close()
        }
    }

    /// Opens `url` with `opener` and waits for the redirect carrying `state`, at most
    /// `timeout` on `clock`. Returns, or throws, once the port is free again, so the next
    /// login can bind it at once.
    ///
    /// - Throws: ``AuthError/Code/transient`` when the browser could not be opened or the
    ///   timeout passed (`timeout`); `CancellationError` on cancellation.
    package func run(
        opening url: URL, with opener: BrowserOpener, state: String, timeout: Duration, clock: any SessionClock,
        page: @escaping @Sendable ([String: String]) -> String
    ) async throws -> [String: String] {
        do {
            let query = try await waitForRedirect(opening: url, with: opener, state: state, timeout: timeout, clock: clock, page: page)
            await closeAndWait()
            return query
        } catch {
            await closeAndWait()
            throw error
        }
    }

    private func waitForRedirect(
        opening url: URL, with opener: BrowserOpener, state: String, timeout: Duration, clock: any SessionClock,
        page: @escaping @Sendable ([String: String]) -> String
    ) async throws -> [String: String] {
        try await withThrowingTaskGroup(of: [String: String]?.self) { group in
            group.addTask { try await self.waitForCallback(state: state, page: page) }
            group.addTask {
                do { try await opener(url) } catch {
                    throw AuthError(.transient, "the browser could not be opened: \(error)", underlying: error)
                }
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let query = result { return query }
                throw AuthError(.transient, "the browser login did not come back within \(Int(timeout.timeInterval)) s", providerCode: "timeout")
            }
            throw CancellationError()
        }
    }

    /// Stops listening; a waiting caller gets `CancellationError`.
    package func close() {
        let waiting = state.withLock { state -> Waiter? in
            defer { state = .closed }
            switch state {
            case .waiting(let waiter): return waiter
            case .idle:
                releaseSocket()
                return nil
            case .closed: return nil
            }
        }
        // A waiting accept loop sees `.closed` within its poll interval and closes the socket.
        waiting?.continuation.resume(throwing: CancellationError())
    }

    /// ``close()``, then waits until the listening socket is closed and the port free.
    package func closeAndWait() async {
        close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = released.withLock { released -> Bool in
                if !released.done { released.waiters.append(continuation) }
                return released.done
            }
            if done { continuation.resume() }
        }
    }

    /// Closes the listening socket, once, and wakes whoever waits for the port.
    private func releaseSocket() {
        let waiters = released.withLock { released -> [CheckedContinuation<Void, Never>] in
            guard !released.done else { return [] }
            Glibc.close(socket)
            released.done = true
            defer { released.waiters = [] }
            return released.waiters
        }
        waiters.forEach { $0.resume() }
    }

    private var isClosed: Bool {
        if case .closed = state.withLock({ $0 }) { true } else { false }
    }

    private func acceptLoop() {
        defer { releaseSocket() }
        while !isClosed {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&descriptor, 1, 100) > 0 else { continue }
            let connection = Glibc.accept(socket, nil, nil)
            guard connection >= 0 else { continue }
            // Not inherited by a browser the opener may be starting at this moment.
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            guard activeConnections.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                activeConnections.subtract(1, ordering: .relaxed)
                Glibc.close(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                activeConnections.subtract(1, ordering: .relaxed)
            }
            thread.name = "latchkey.loopback.connection"
            thread.start()
        }
    }

    /// What a request for the callback path leads to.
    private enum Outcome {
        /// The login's redirect: the waiter, now removed.
        case redirect(Waiter)
        /// Not this login's `state` (or none): ignored.
        case foreign
        /// The login already ended.
        case over
    }

    private func serve(_ connection: Int32) {
        defer { Glibc.close(connection) }
        let deadline = ContinuousClock.now + connectionDeadline
        guard let target = Self.readRequestTarget(connection, until: deadline) else { return }
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        guard target[..<pathEnd] == redirect.path else {
            Self.write(connection, status: "404 Not Found", html: Self.plainPage("Not found", "Not found."), until: deadline)
            return
        }
        let query = pathEnd < target.endIndex ? FormBody.decode(target[target.index(after: pathEnd)...]) : [:]
        // `state` first: nothing else in a stranger's query is looked at.
        let outcome = state.withLock { state -> Outcome in
            guard case .waiting(let waiter) = state else { return .over }
            guard let given = query["state"], Self.equal(given, waiter.expectedState) else { return .foreign }
            state = .closed
            return .redirect(waiter)
        }
        switch outcome {
        case .foreign:
            Self.write(
                connection, status: "400 Bad Request",
                html: Self.plainPage("Not this sign-in", "This response does not belong to the sign-in in progress and was ignored."),
                until: deadline)
        case .over:
            Self.write(
                connection, status: "410 Gone", html: Self.plainPage("Sign-in over", "This sign-in is over. You can close this tab."),
                until: deadline)
        case .redirect(let waiter):
            Self.write(connection, status: "200 OK", html: waiter.page(query), until: deadline)
            waiter.continuation.resume(returning: query)
        }
    }

    private static func equal(_ lhs: String, _ rhs: String) -> Bool {
        Array(lhs.utf8).withUnsafeBytes { left in Array(rhs.utf8).withUnsafeBytes { right in constantTimeEquals(left, right) } }
    }

    /// The request target of a `GET` (`/callback?code=…`), read up to the end of the
    /// headers (at most 16 KiB) before `deadline`; `nil` for anything else, or when the
    /// deadline passes first.
    private static func readRequestTarget(_ connection: Int32, until deadline: ContinuousClock.Instant) -> Substring? {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 16_384 {
            guard let wait = milliseconds(until: deadline) else { return nil }
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&descriptor, 1, wait)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { if ready == 0 { continue } else { return nil } }
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
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

    /// Milliseconds left until `deadline` (at least 1), or `nil` once it has passed.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32? {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return nil }
        return Int32(clamping: max(1, Int64(left.timeInterval * 1000)))
    }

    private static func containsHeaderEnd(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }

    private static func plainPage(_ title: String, _ text: String) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(title)</title></head><body><h1 id=\"result\">\(title)</h1><p>\(text)</p></body></html>"
    }

    /// Writes the answer before `deadline`; a reader that does not take it is dropped.
    private static func write(_ connection: Int32, status: String, html: String, until deadline: ContinuousClock.Instant) {
        let body = Array(html.utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            guard let wait = milliseconds(until: deadline) else { return }
            var descriptor = pollfd(fd: connection, events: Int16(POLLOUT), revents: 0)
            let ready = Glibc.poll(&descriptor, 1, wait)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { if ready == 0 { continue } else { return } }
            let sent = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.send(connection, $0 + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } ?? -1
            }
            if sent < 0, errno == EINTR || errno == EAGAIN { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}
