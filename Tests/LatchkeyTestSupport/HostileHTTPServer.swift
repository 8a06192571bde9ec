public import Foundation
import Glibc
import Synchronization

/// An HTTP/1.1 server on a loopback address that answers as a hostile or broken server
/// would: redirects anywhere, bodies that never end, compression bombs, tokens no provider
/// issues. A real socket and real bytes, one thread per connection, every request
/// recorded (the test checks what reached it — or that nothing did).
public final class HostileHTTPServer: Sendable {
    /// A request as it arrived.
    public struct Request: Sendable {
        /// `POST`.
        public let method: String
        /// `/sdk/v1/passwords/authenticate`.
        public let path: String
        /// The request line and header fields, as sent.
        public let head: String
        /// The body.
        public let body: [UInt8]

        /// The value of header `name` (case-insensitive), if present.
        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }
    }

    /// What to answer.
    public enum Reply: Sendable {
        /// These bytes, then the connection closes.
        case bytes([UInt8])
        /// This head, then a body that never ends (until the client goes away).
        case endless(head: String)
    }

    /// The address it listens on.
    public let host: String
    /// The port it listens on.
    public let port: UInt16
    private let socket: Int32
    private let answer: @Sendable (Request) -> Reply
    private let recorded = Mutex<[Request]>([])
    private let stopped = Atomic<Bool>(false)

    /// Starts listening on `host` (a loopback address; 127.0.0.2 is another host to
    /// clients of 127.0.0.1) at an ephemeral port.
    public init(host: String = "127.0.0.1", answer: @escaping @Sendable (Request) -> Reply) throws {
        self.host = host
        self.answer = answer
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        socket = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `http://host:port/`.
    public var url: URL { URL(string: "http://\(host):\(port)/")! }

    /// The requests received so far.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Stops accepting and ends endless bodies.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    /// A complete answer: status line, `Content-Length`, `Connection: close`, the extra
    /// header lines, the body.
    public static func reply(_ status: Int, headers: [String] = [], body: [UInt8] = []) -> Reply {
        let head = (["HTTP/1.1 \(status) Status", "Content-Length: \(body.count)", "Connection: close"] + headers).joined(separator: "\r\n")
        return .bytes(Array((head + "\r\n\r\n").utf8) + body)
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ text: String, headers: [String] = []) -> Reply {
        reply(status, headers: ["Content-Type: application/json"] + headers, body: Array(text.utf8))
    }

    /// The gzip compression of `count` zero bytes, made by the system's `gzip`: a bomb of
    /// about a thousandth of its decoded size.
    public static func gzippedZeros(count: Int) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(count) /dev/zero | gzip -9 -c"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(socket, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = readRequest(client) else { return }
        recorded.withLock { $0.append(request) }
        switch answer(request) {
        case .bytes(let bytes):
            _ = send(client, bytes)
        case .endless(let head):
            guard send(client, Array((head + "\r\n\r\n").utf8)) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
            while !stopped.load(ordering: .relaxed), send(client, chunk) {}
        }
    }

    /// Reads the head and a `Content-Length` body.
    private func readRequest(_ client: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Int?
        while headEnd == nil {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: buffer[..<count])
            headEnd = Self.find([13, 10, 13, 10], in: bytes)
            if bytes.count > 1 << 20 { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
        let line = head.split(separator: "\r\n").first.map { $0.split(separator: " ") } ?? []
        let partial = Request(method: line.first.map(String.init) ?? "", path: line.count > 1 ? String(line[1]) : "", head: head, body: [])
        let length = min(Int(partial.header("Content-Length") ?? "0") ?? 0, 1 << 20)
        var body = Array(bytes[(headEnd + 4)...])
        while body.count < length {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { break }
            body.append(contentsOf: buffer[..<count])
        }
        return Request(method: partial.method, path: partial.path, head: head, body: body)
    }

    /// Writes all of `bytes`; `false` once the client has gone (no SIGPIPE).
    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        return nil
    }
}
