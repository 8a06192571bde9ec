internal import Foundation
internal import Latchkey

#if canImport(Glibc)
internal import Glibc
#endif

extension Auth0MachineTokenSource {
    /// Where a machine client's secret is read: the environment or a file, never code or a
    /// command line (where other users read it in /proc and shells keep it in history).
    public enum SecretSource: Sendable, Hashable, CustomStringConvertible {
        /// The environment variable `name`.
        case environment(String)
        /// The file at `path`: a regular file that no other user can read (mode 600 or
        /// 400, as the CLI asks of files holding secrets). A trailing newline is dropped.
        case file(String)

        /// Where, never what: `environment NAME` or `file PATH`.
        public var description: String {
            switch self {
            case .environment(let name): "environment \(name)"
            case .file(let path): "file \(path)"
            }
        }

        /// The largest secret file read.
        static let sizeLimit = 65_536

        /// Reads the secret now (a file is read afresh each time, so a rotated secret is
        /// picked up at the next grant).
        ///
        /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the variable or the file (never
        ///   the secret) when it is missing, empty, or a file others can read.
        func read(environment: [String: String]) throws(AuthError) -> String {
            let text: String
            switch self {
            case .environment(let name):
                guard let value = environment[name] else {
                    throw AuthError(.configuration, "the machine client's secret was to come from the environment variable \(name), which is not set")
                }
                text = value
            case .file(let path):
                text = try Self.readFile(path)
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw AuthError(.configuration, "the machine client's secret in the \(self) is empty") }
            return secret
        }

        /// The file's bytes, checked and read through one descriptor (no window between the
        /// check and the read).
        private static func readFile(_ path: String) throws(AuthError) -> String {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw AuthError(.configuration, "the machine client's secret file \(path) cannot be opened: \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw AuthError(.configuration, "the machine client's secret file \(path) is not a regular file")
            }
            let mode = info.st_mode & 0o777
            guard mode & 0o044 == 0 else {
                throw AuthError(
                    .configuration,
                    "the machine client's secret file \(path) can be read by other users (mode \(String(mode, radix: 8))); "
                        + "refused: chmod 600 it (a Kubernetes secret volume: defaultMode 0400)")
            }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    throw AuthError(.configuration, "the machine client's secret file \(path) cannot be read: \(String(cString: strerror(errno)))")
                }
                if count == 0 { break }
                bytes.append(contentsOf: chunk[..<count])
                guard bytes.count <= sizeLimit else {
                    throw AuthError(.configuration, "the machine client's secret file \(path) is larger than \(sizeLimit) bytes")
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
