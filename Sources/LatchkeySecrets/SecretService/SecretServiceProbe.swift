internal import Synchronization

/// The result of asking the session's Secret Service once: is there a session bus,
/// can libsecret be loaded, does a search answer.
///
/// The probe only searches (for a namespace no one uses): it stores nothing and never
/// asks to unlock, so it shows no prompt and leaves nothing in the user's keyring.
public struct SecretServiceProbe: Sendable, CustomStringConvertible {
    /// Whether a Secret Service answered.
    public let isAvailable: Bool
    /// Why it is or is not usable, for people.
    public let reason: String
    /// The failure, when there was one.
    public let error: SecretStoreError?

    /// Probes the session's real Secret Service.
    public static func run() -> SecretServiceProbe {
        run(system: .live)
    }

    /// Probes through `system`.
    package static func run(system: SecretServiceSystem) -> SecretServiceProbe {
        let store = "Secret Service probe"
        if let why = system.unusableReason() {
            return SecretServiceProbe(isAvailable: false, reason: why, error: SecretStoreError(.unavailable, store: store, reason: why))
        }
        do throws(SecretServiceFailure) {
            _ = try system.names("latchkey-probe")
        } catch {
            let mapped = SecretServiceSecretStore.error(error, store: store, entry: nil)
            return SecretServiceProbe(isAvailable: false, reason: mapped.reason, error: mapped)
        }
        return SecretServiceProbe(
            isAvailable: true,
            reason: "a Secret Service (GNOME Keyring, KDE Wallet, …) answers on the session bus: a search through libsecret worked",
            error: nil)
    }

    /// The reason.
    public var description: String { reason }

    private static let cache = Mutex<[String: SecretServiceProbe]>([:])

    /// ``run(system:)`` once per process and set of calls.
    static func cached(system: SecretServiceSystem) -> SecretServiceProbe {
        if let probe = cache.withLock({ $0[system.identifier] }) { return probe }
        let probe = run(system: system)
        cache.withLock { $0[system.identifier] = probe }
        return probe
    }
}
