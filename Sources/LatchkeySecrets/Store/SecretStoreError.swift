public import Foundation

/// A failure of a ``SecretStore``.
///
/// The description names the store (backend, namespace and, for files, the path), the
/// entry when there is one, what went wrong and, where the user can do something about
/// it, how to fix it. It never contains a secret value, a key or a passphrase.
///
/// Match on ``code``: `if error.code == .quotaExceeded { … }`. New codes may be added
/// without breaking callers.
public struct SecretStoreError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unavailable, quotaExceeded, permissionDenied, valueTooLarge
            case corrupted, wrongKey, unsupportedVersion, invalidName, ioFailure
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The backend cannot be used here, e.g. keyring system calls are blocked by a
        /// container's seccomp profile (EPERM, ENOSYS).
        public static let unavailable = Code(.unavailable)
        /// The user's kernel keyring quota (keys or bytes) is used up (EDQUOT).
        public static let quotaExceeded = Code(.quotaExceeded)
        /// The operating system refused access, or a file or directory has unsafe
        /// ownership or permissions.
        public static let permissionDenied = Code(.permissionDenied)
        /// The value is larger than the backend can hold.
        public static let valueTooLarge = Code(.valueTooLarge)
        /// Stored data failed to parse or authenticate. The data is left untouched.
        public static let corrupted = Code(.corrupted)
        /// The data was encrypted under a different key or passphrase.
        public static let wrongKey = Code(.wrongKey)
        /// The file's format version is not the one this library writes (older or newer).
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A namespace or entry name is empty, too long or contains forbidden characters.
        public static let invalidName = Code(.invalidName)
        /// Any other failure of the operating system (I/O errors, no space, …).
        public static let ioFailure = Code(.ioFailure)

        /// A short label, e.g. "quota exceeded".
        public var description: String {
            switch value {
            case .unavailable: "unavailable"
            case .quotaExceeded: "quota exceeded"
            case .permissionDenied: "permission denied"
            case .valueTooLarge: "value too large"
            case .corrupted: "corrupted"
            case .wrongKey: "wrong key"
            case .unsupportedVersion: "unsupported version"
            case .invalidName: "invalid name"
            case .ioFailure: "I/O failure"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The store that failed, e.g. `kernel keyring store "com.example.app"`.
    public let store: String
    /// The entry the operation was about, if any.
    public let entry: String?
    /// What went wrong and, where possible, how to fix it.
    public let reason: String
    /// The `errno` of the failing system call, if one failed.
    public let errno: Int32?
    /// The underlying error (for example the crypto layer's), if any. Its description
    /// never contains secrets either.
    public let underlying: (any Error & Sendable)?

    /// Creates an error; used by the backends.
    public init(_ code: Code, store: String, entry: String? = nil, reason: String, errno: Int32? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.store = store
        self.entry = entry
        self.reason = reason
        self.errno = errno
        self.underlying = underlying
    }

    /// `<store>: entry "<name>": <code>: <reason>`.
    public var description: String {
        var text = store + ": "
        if let entry { text += "entry \"\(entry)\": " }
        text += "\(code): \(reason)"
        return text
    }

    /// The same text as ``description`` (not Foundation's generic sentence).
    public var errorDescription: String? { description }
}
