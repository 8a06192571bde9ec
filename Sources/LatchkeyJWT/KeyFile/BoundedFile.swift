#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a file of at most a bounded size with POSIX calls: the key-file reader needs
/// nothing of Foundation's file handles (so a tool that only verifies tokens links
/// FoundationEssentials alone). The CLI's key and secret files are read here too.
package enum BoundedFile {
    /// Why a file could not be read: the system's reason (`strerror`), as "No such file or directory".
    package struct ReadError: Error, CustomStringConvertible {
        let code: Int32
        package var reason: String { String(cString: strerror(code)) }
        package var description: String { reason }
    }

    /// The first `limit` bytes of the file at `path` (all of it when shorter).
    package static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(code: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(code: errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}

/// `read(2)`, named apart from `BoundedFile.read`.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
