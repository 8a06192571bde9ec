public import LatchkeySecrets

/// Which secret store holds the session, and where.
public struct StoreSettings: Sendable, Hashable {
    /// `automatic` (the desktop's Secret Service where one answers; else the keyring in
    /// front of an encrypted file where the keyring works, the file alone where it does
    /// not), or a named backend. `secret-service` is the desktop session's Secret Service
    /// (GNOME Keyring, KDE Wallet): named, it never falls back to another store — where
    /// none answers, opening the store fails and says why.
    public enum Backend: String, Sendable, Hashable, CaseIterable {
        case automatic, keyring, file, layered, memory
        case secretService = "secret-service"
    }

    /// The backend. Default `automatic`.
    public var backend: Backend
    /// The namespace of the app's entries, usually its reverse-DNS name. Default `latchkey`.
    public var namespace: String
    /// The encrypted file's directory; default `$XDG_DATA_HOME/latchkey`.
    public var dataDirectory: String?
    /// The key file's directory; default `$XDG_CONFIG_HOME/latchkey`.
    public var configDirectory: String?
    /// The key file; default `secrets.key` in ``configDirectory``.
    public var keyFile: String?

    /// Creates store settings.
    public init(
        backend: Backend = .automatic, namespace: String = "latchkey", dataDirectory: String? = nil,
        configDirectory: String? = nil, keyFile: String? = nil
    ) {
        self.backend = backend
        self.namespace = namespace
        self.dataDirectory = dataDirectory
        self.configDirectory = configDirectory
        self.keyFile = keyFile
    }

    /// Opens the store these settings describe.
    ///
    /// - Throws: ``AuthError/Code/storage`` when it cannot be opened (for `secret-service`:
    ///   when no Secret Service answers on the session bus).
    public func makeStore() throws(AuthError) -> SecretStoreSelection {
        let configuration = SecretStoreConfiguration(
            dataDirectory: dataDirectory, configDirectory: configDirectory,
            keySource: keyFile.map(FileKeySource.keyFile(at:)) ?? .keyFile)
        do {
            switch backend {
            case .automatic: return try SecretStoreSelection.automatic(namespace: namespace, configuration: configuration)
            case .keyring: return try SecretStoreSelection.named(.keyring, namespace: namespace, configuration: configuration)
            case .file: return try SecretStoreSelection.named(.file, namespace: namespace, configuration: configuration)
            case .layered: return try SecretStoreSelection.named(.layered, namespace: namespace, configuration: configuration)
            case .memory: return try SecretStoreSelection.named(.memory, namespace: namespace, configuration: configuration)
            case .secretService: return try SecretStoreSelection.named(.secretService, namespace: namespace, configuration: configuration)
            }
        } catch {
            throw AuthError(.storage, "cannot open the \(backend.rawValue) secret store for namespace \"\(namespace)\": \(error)", underlying: error)
        }
    }
}
