internal import Glibc
public import Logging

/// Where the file-backed stores keep their files, how they get their key, and where
/// they log.
///
/// By default the data directory is `$XDG_DATA_HOME/latchkey` (`~/.local/share/latchkey`)
/// and the configuration directory, which holds the key file, is
/// `$XDG_CONFIG_HOME/latchkey` (`~/.config/latchkey`). Tests and sandboxed apps pass
/// their own directories instead of changing the process environment.
public struct SecretStoreConfiguration: Sendable {
    /// The directory holding one `<namespace>.secrets` file (and its `.lock`) per namespace.
    public var dataDirectory: String
    /// The directory holding the key file.
    public var configDirectory: String
    /// Where the encryption key comes from.
    public var keySource: FileKeySource
    /// scrypt parameters for new passphrase-protected files.
    public var scrypt: ScryptParameters
    /// Receives diagnostics (backend choice, fallbacks); never a secret. No output by default.
    public var logger: Logger
    /// The keyring calls, replaceable in tests.
    package var keyringSystem: KeyringSystem = .live
    /// The Secret Service calls, replaceable in tests.
    package var secretServiceSystem: SecretServiceSystem = .live

    /// A configuration; `nil` directories resolve from the XDG environment variables.
    public init(
        dataDirectory: String? = nil,
        configDirectory: String? = nil,
        keySource: FileKeySource = .keyFile,
        scrypt: ScryptParameters = .default,
        logger: Logger = Logger(label: "latchkey.secrets", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.dataDirectory = dataDirectory ?? Self.xdgDirectory("XDG_DATA_HOME", fallback: ".local/share")
        self.configDirectory = configDirectory ?? Self.xdgDirectory("XDG_CONFIG_HOME", fallback: ".config")
        self.keySource = keySource
        self.scrypt = scrypt
        self.logger = logger
    }

    /// The key file the store uses when ``keySource`` is a key file.
    public var keyFilePath: String? {
        switch keySource.kind {
        case .keyFile(let path): path ?? POSIXFile.join(configDirectory, "secrets.key")
        case .passphrase: nil
        }
    }

    /// The data file of `namespace`.
    public func dataFilePath(namespace: String) -> String {
        POSIXFile.join(dataDirectory, namespace + ".secrets")
    }

    /// `$<variable>/latchkey` when the variable holds an absolute path (as the XDG
    /// specification requires), else `$HOME/<fallback>/latchkey`.
    package static func xdgDirectory(_ variable: String, fallback: String, environment: [String: String]? = nil) -> String {
        func lookup(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let value = lookup(variable), value.hasPrefix("/") {
            return POSIXFile.join(value, "latchkey")
        }
        let home = lookup("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? passwordDatabaseHome() ?? "/"
        return POSIXFile.join(POSIXFile.join(home, fallback), "latchkey")
    }

    private static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let directory = entry.pw_dir
        else { return nil }
        return String(cString: directory)
    }
}
