internal import Logging

/// Which store to use on this machine, and why.
///
/// ``automatic(namespace:configuration:)`` probes the kernel keyring once per process
/// (add, read back and invalidate a probe key) and picks ``Backend/layered`` where the
/// keyring works and ``Backend/file`` where it does not — typically in a container
/// whose seccomp profile blocks the keyring calls (EPERM in Docker, ENOSYS in Podman).
/// The choice and its reason are logged at `info` level to the configuration's logger.
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

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The chosen backend.
    public let backend: Backend
    /// Why it was chosen.
    public let reason: String
    /// The store itself.
    public let store: any SecretStore
    /// The keyring probe the choice was based on (`nil` when a backend was named).
    public let probe: KeyringProbe?

    /// Picks the store for this machine.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public static func automatic(namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()) throws -> SecretStoreSelection {
        let probe = KeyringProbe.cached(system: configuration.keyringSystem)
        let selection: SecretStoreSelection
        if probe.isAvailable {
            selection = SecretStoreSelection(
                backend: .layered,
                reason: "\(probe.reason); using the keyring in front of the encrypted file \(configuration.dataFilePath(namespace: namespace))",
                store: try LayeredSecretStore(namespace: namespace, configuration: configuration), probe: probe)
        } else {
            selection = SecretStoreSelection(
                backend: .file,
                reason: "the kernel keyring is not usable: \(probe.reason); using the encrypted file \(configuration.dataFilePath(namespace: namespace)) alone",
                store: try EncryptedFileSecretStore(namespace: namespace, configuration: configuration), probe: probe)
        }
        configuration.logger.info("secret store selected", metadata: ["backend": "\(selection.backend)", "reason": "\(selection.reason)"])
        return selection
    }

    /// The store for a named backend, without probing.
    /// - Throws: `.invalidName` if the namespace is not usable.
    public static func named(_ backend: Backend, namespace: String, configuration: SecretStoreConfiguration = SecretStoreConfiguration()) throws -> SecretStoreSelection {
        let store: any SecretStore = switch backend {
        case .keyring: try KeyringSecretStore(namespace: namespace, system: configuration.keyringSystem, logger: configuration.logger)
        case .file: try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
        case .layered: try LayeredSecretStore(namespace: namespace, configuration: configuration)
        case .memory: try MemorySecretStore(namespace: namespace)
        }
        return SecretStoreSelection(backend: backend, reason: "the \(backend) backend was requested", store: store, probe: nil)
    }

    /// "layered: <reason>".
    public var description: String { "\(backend): \(reason)" }
}
