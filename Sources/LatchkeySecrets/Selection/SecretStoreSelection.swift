internal import Glibc
internal import Logging

/// Which store to use on this machine, and why.
///
/// ``automatic(namespace:configuration:)`` first asks the session's Secret Service once
/// per process (a search through libsecret: no item written, no prompt). Where one
/// answers — a desktop session — it picks ``Backend/secretService`` alone: the desktop's
/// keyring is already the persistent, encrypted store, and a copy in the kernel keyring
/// would stay readable while the user has the desktop keyring locked. A namespace whose encrypted file
/// already exists (secrets an earlier version stored) keeps today's choice instead, so
/// nothing stored is left behind.
///
/// Where none answers (a server, a container, CI: no session bus, or no libsecret), the
/// kernel keyring is probed once per process (add, read back and invalidate a probe key)
/// and it picks ``Backend/layered`` where the keyring works and ``Backend/file`` where it
/// does not — typically in a container whose seccomp profile blocks the keyring calls
/// (EPERM in Docker, ENOSYS in Podman). The choice and its reason are logged at `info`
/// level to the configuration's logger.
public struct SecretStoreSelection: Sendable, CustomStringConvertible {
    /// A storage backend.
    public enum Backend: String, Sendable, CaseIterable, CustomStringConvertible {
        /// ``KeyringSecretStore``.
        case keyring
        /// ``EncryptedFileSecretStore``.
        case file
        /// ``LayeredSecretStore``.
        case layered
        /// ``MemorySecretStore``.
        case memory
        /// ``SecretServiceSecretStore``.
        case secretService = "secret-service"

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The chosen backend.
    public let backend: Backend
    /// Why it was chosen.
    public let reason: String
    /// The store itself.
    public let store: any SecretStore
    /// The keyring probe the choice was based on (`nil` when a backend was named, or
    /// when a Secret Service answered and the keyring was not needed).
    public let probe: KeyringProbe?
    /// The Secret Service probe the choice was based on (`nil` when a backend was named).
    public let secretServiceProbe: SecretServiceProbe?

    init(backend: Backend, reason: String, store: any SecretStore, probe: KeyringProbe?, secretServiceProbe: SecretServiceProbe? = nil) {
        self.backend = backend
        self.reason = reason
        self.store = store
        self.probe = probe
        self.secretServiceProbe = secretServiceProbe
    }

    /// Picks the store for this machine.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public static func automatic(
        namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()
    ) throws -> SecretStoreSelection {
        let desktop = SecretServiceProbe.cached(system: configuration.secretServiceSystem)
        let selection: SecretStoreSelection
        // A namespace whose secrets an earlier version kept in the encrypted file stays
        // there: choosing the Secret Service would leave them behind, and a stored session
        // would read as logged out.
        let dataFile = configuration.dataFilePath(namespace: namespace)
        let keptInFile = access(dataFile, F_OK) == 0
        if desktop.isAvailable, !keptInFile {
            selection = SecretStoreSelection(
                backend: .secretService,
                reason: "\(desktop.reason); using it as the persistent store (a desktop session)",
                store: try SecretServiceSecretStore(namespace: namespace, system: configuration.secretServiceSystem),
                probe: nil, secretServiceProbe: desktop)
            configuration.logger.info("secret store selected", metadata: ["backend": "\(selection.backend)", "reason": "\(selection.reason)"])
            return selection
        }
        let noDesktop =
            desktop.isAvailable
            ? "\(desktop.reason), but this namespace's secrets are already in \(dataFile): kept there (they are not moved)"
            : "no Secret Service: \(desktop.reason)"
        let probe = KeyringProbe.cached(system: configuration.keyringSystem)
        if probe.isAvailable {
            selection = SecretStoreSelection(
                backend: .layered,
                reason:
                    "\(noDesktop); \(probe.reason); using the encrypted file \(configuration.dataFilePath(namespace: namespace)) with the keyring for a passphrase's key",
                store: try LayeredSecretStore(namespace: namespace, configuration: configuration), probe: probe, secretServiceProbe: desktop)
        } else {
            selection = SecretStoreSelection(
                backend: .file,
                reason:
                    "\(noDesktop); the kernel keyring is not usable: \(probe.reason); using the encrypted file \(configuration.dataFilePath(namespace: namespace)) alone",
                store: try EncryptedFileSecretStore(namespace: namespace, configuration: configuration), probe: probe, secretServiceProbe: desktop)
        }
        configuration.logger.info("secret store selected", metadata: ["backend": "\(selection.backend)", "reason": "\(selection.reason)"])
        return selection
    }

    /// The store for a named backend. Only ``Backend/secretService`` is probed (a search,
    /// as in ``automatic(namespace:configuration:)``): asked for by name, it is used or it
    /// is an error, never silently replaced by another store.
    /// - Throws: `.invalidName` if the namespace is not usable; `.unavailable` for
    ///   ``Backend/secretService`` when no Secret Service answers, saying why.
    public static func named(
        _ backend: Backend, namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()
    ) throws -> SecretStoreSelection {
        if backend == .secretService {
            // Not the cached probe: a service started since the last one counts.
            let probe = SecretServiceProbe.run(system: configuration.secretServiceSystem)
            guard probe.isAvailable else {
                throw SecretStoreError(
                    .unavailable, store: "Secret Service store \"\(namespace)\"",
                    reason:
                        "the secret-service backend was chosen, but no Secret Service answers: \(probe.reason). "
                        + "Run it inside a desktop session whose keyring (GNOME Keyring, KDE Wallet, KeePassXC) is running, "
                        + "or choose another backend (automatic picks one that works here)", underlying: probe.error)
            }
        }
        let store: any SecretStore =
            switch backend {
            case .keyring: try KeyringSecretStore(namespace: namespace, system: configuration.keyringSystem, logger: configuration.logger)
            case .file: try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
            case .layered: try LayeredSecretStore(namespace: namespace, configuration: configuration)
            case .memory: try MemorySecretStore(namespace: namespace)
            case .secretService: try SecretServiceSecretStore(namespace: namespace, system: configuration.secretServiceSystem)
            }
        return SecretStoreSelection(backend: backend, reason: "the \(backend) backend was requested", store: store, probe: nil)
    }

    /// "layered: <reason>".
    public var description: String { "\(backend): \(reason)" }
}
