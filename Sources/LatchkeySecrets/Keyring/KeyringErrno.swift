internal import Glibc

/// How the keyring store treats an `errno` from a keyring system call.
package enum KeyringErrno: Equatable, Sendable {
    /// ENOKEY, EKEYEXPIRED, EKEYREVOKED: the key is not there (any more).
    case notFound
    /// EDQUOT: the user's key count or byte quota is used up.
    case quotaExceeded
    /// EPERM, ENOSYS: the keyring system calls are blocked (seccomp in Docker, Podman).
    case unavailable
    /// EACCES: the key exists but this user may not use it.
    case permissionDenied
    /// Anything else.
    case failure

    /// Classifies `errno` (EINTR never gets here: ``systemCall(_:)`` retries it).
    package static func classify(_ code: Int32) -> KeyringErrno {
        switch code {
        case ENOKEY, EKEYEXPIRED, EKEYREVOKED: .notFound
        case EDQUOT: .quotaExceeded
        case EPERM, ENOSYS: .unavailable
        case EACCES: .permissionDenied
        default: .failure
        }
    }
}
