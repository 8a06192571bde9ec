internal import Dispatch
internal import Glibc

/// An exclusive `flock` on a lock file, held until ``release()``.
///
/// The lock file is separate from the data file because the data file is replaced by
/// `rename` on every write: a lock on it would protect an inode that no longer has a
/// name. Lock files are never deleted, which would let two writers lock different
/// inodes of the same path. The kernel drops the lock when the process dies, so a
/// crashed writer never leaves a namespace locked.
struct FileLock: Sendable {
    private let fd: Int32

    /// Opens (creating with mode 0600 if needed) and locks `path`.
    ///
    /// Tries without blocking first; when another process holds the lock, the blocking
    /// `flock` runs on a Dispatch thread so no Swift-concurrency thread is blocked.
    static func acquire(_ path: String) async throws(Errno) -> FileLock {
        let fd = try systemCall { open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600) }
        do throws(Errno) {
            try systemCallVoid { flock(fd, LOCK_EX | LOCK_NB) }
            return FileLock(fd: fd)
        } catch  where error.rawValue == EWOULDBLOCK {
            // Fall through to the blocking wait below.
        } catch {
            POSIXFile.close(fd)
            throw error
        }
        let result: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(Errno) {
                    try systemCallVoid { flock(fd, LOCK_EX) }
                    continuation.resume(returning: 0)
                } catch {
                    continuation.resume(returning: error.rawValue)
                }
            }
        }
        guard result == 0 else {
            POSIXFile.close(fd)
            throw Errno(result)
        }
        return FileLock(fd: fd)
    }

    /// The lock file's status, for the ownership and mode checks.
    func status() throws(Errno) -> stat { try POSIXFile.status(fd) }

    /// Unlocks by closing the descriptor.
    func release() {
        POSIXFile.close(fd)
    }
}
