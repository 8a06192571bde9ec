/// Where an ``EncryptedFileSecretStore`` gets its 256-bit key.
///
/// Its description never shows a passphrase.
public struct FileKeySource: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case keyFile(path: String?)
        case passphrase([UInt8])
    }

    let kind: Kind

    /// A random 256-bit key in a 0600 file, `secrets.key` in the configuration
    /// directory (`$XDG_CONFIG_HOME/latchkey/`), created on the first write. The
    /// default.
    public static let keyFile = FileKeySource(kind: .keyFile(path: nil))

    /// A random 256-bit key in a 0600 file at `path`, created on the first write.
    public static func keyFile(at path: String) -> FileKeySource {
        FileKeySource(kind: .keyFile(path: path))
    }

    /// A key derived from `passphrase` with scrypt; the salt and parameters are kept in
    /// each file's header.
    public static func passphrase(_ passphrase: [UInt8]) -> FileKeySource {
        FileKeySource(kind: .passphrase(passphrase))
    }

    /// A key derived from the UTF-8 bytes of `passphrase` with scrypt.
    public static func passphrase(_ passphrase: String) -> FileKeySource {
        FileKeySource(kind: .passphrase(Array(passphrase.utf8)))
    }

    /// "key file" or "key file at <path>" or "passphrase (redacted)".
    public var description: String {
        switch kind {
        case .keyFile(let path): path.map { "key file at \($0)" } ?? "key file"
        case .passphrase: "passphrase (redacted)"
        }
    }
}
