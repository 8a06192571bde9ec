internal import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// A configuration file as read from disk: its bytes, owner and permission bits, taken
/// from one open file (no window between checking the file and reading it).
struct ConfigurationFile {
    /// The largest configuration file read.
    static let sizeLimit = 1 << 20

    var bytes: [UInt8]
    var owner: UInt32
    /// The permission bits (`0o644`).
    var mode: UInt32

    enum Failure: Error {
        case missing
        case unreadable(String)
    }

    /// Reads `path`.
    static func read(_ path: String) -> Result<ConfigurationFile, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT ? .missing : .unreadable(String(cString: strerror(code))))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.unreadable("not a regular file")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= sizeLimit else { return .failure(.unreadable("larger than \(sizeLimit) bytes")) }
        }
        return .success(ConfigurationFile(bytes: bytes, owner: info.st_uid, mode: info.st_mode & 0o7777))
    }

    /// Why a file found implicitly (`./latchkey.json`) must not be used, or `nil`: it must
    /// belong to the user running the program and be writable by no one else: another
    /// user's file in a shared directory could otherwise point the program — and the
    /// user's stored session — at a server of their choosing. (A file the user owns may
    /// still come from a cloned repository: the session's endpoint binding covers that.)
    func implicitUseRefusal(path: String, user: UInt32) -> String? {
        let pin = "name a configuration on purpose with LATCHKEY_CONFIG (the CLI: --config) to use it"
        if owner != user {
            return "the configuration file \(path) found in the current directory belongs to uid \(owner), not to you (uid \(user)); refused — \(pin)"
        }
        if mode & 0o022 != 0 {
            return
                "the configuration file \(path) found in the current directory is writable by others (mode \(String(mode, radix: 8))); refused — chmod go-w it, or \(pin)"
        }
        return nil
    }
}
