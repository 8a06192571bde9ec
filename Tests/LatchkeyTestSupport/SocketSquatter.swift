import Glibc

/// Another program holding a loopback port: a socket bound to `127.0.0.1:<port>` and
/// listening, until ``close()``.
public final class SocketSquatter: Sendable {
    private let fd: Int32

    /// Binds and listens on `127.0.0.1:port`.
    public init(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebDriver.Failure(message: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, listen(fd, 4) == 0 else {
            Glibc.close(fd)
            throw WebDriver.Failure(message: "could not hold port \(port): errno \(errno)")
        }
        self.fd = fd
    }

    /// Frees the port.
    public func close() {
        Glibc.close(fd)
    }
}
