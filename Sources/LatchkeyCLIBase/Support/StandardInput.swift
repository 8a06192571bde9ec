import FoundationEssentials
import Glibc

/// Reads standard input up to a byte limit, so a huge or endless input costs at most
/// the limit in memory and time, never all of it.
package enum StandardInput {
    /// The input read so far: all of it, or the first `limit + 1` bytes when there is more.
    package struct Bounded {
        /// The bytes read.
        package var bytes: [UInt8]
        /// Whether input continues past `limit` (only `limit + 1` bytes were kept).
        package var exceedsLimit: Bool
    }

    /// Reads until end of input or until more than `limit` bytes arrived, whichever
    /// comes first. Counts bytes, not decoded characters.
    /// - Throws: an `ExitCode` (after printing why) when the read fails.
    package static func read(limit: Int) throws -> Bounded {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= limit {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw fail("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return Bounded(bytes: bytes, exceedsLimit: false) }
            bytes += buffer[0..<count]
        }
        return Bounded(bytes: bytes, exceedsLimit: true)
    }
}
