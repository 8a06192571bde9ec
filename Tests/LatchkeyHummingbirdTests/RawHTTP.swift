import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends a request written byte for byte (URLSession folds repeated fields into one, so
/// a request with two `Authorization` fields needs a socket of its own) and returns the
/// status line and headers of the answer.
enum RawHTTP {
    static func send(_ request: String, to url: URL) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect: \(errno)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw TestFailure("write: \(errno)") }
            sent += count
        }
        // The header block is all a test reads; the server closes the connection (Connection: close).
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: answer, as: UTF8.self).contains("\r\n\r\n") {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            answer.append(contentsOf: chunk[..<count])
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
