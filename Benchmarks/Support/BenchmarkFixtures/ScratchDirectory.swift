import Foundation
import Synchronization

/// A private (0700) directory under `$TMPDIR` (or `/tmp`) for one benchmark process's
/// stores, removed when the process exits.
public final class ScratchDirectory: Sendable {
    public let path: String

    public init(prefix: String) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fixtureFailure("mkdtemp in \(base)")
        }
        path = String(cString: made)
        Self.removeAtExit(path)
    }

    /// `path/name`.
    public func appending(_ name: String) -> String { path + "/" + name }

    private static let pending = Mutex<[String]>([])

    private static func removeAtExit(_ path: String) {
        let first = pending.withLock { paths in
            paths.append(path)
            return paths.count == 1
        }
        if first {
            atexit {
                for path in ScratchDirectory.pending.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
            }
        }
    }
}
