internal import LatchkeyCrypto

/// Which service a session was made with: the provider, and the settings that say where
/// its credentials go and for which project or application (a base URL or domain, a
/// public token, a client ID, an API key's digest).
///
/// The client binds every session it stores to its adapter's identity, and a client
/// whose identity disagrees with the stored one neither sends the stored credentials
/// nor clears them: the record is left in place and ``AuthClient/storedSessionConflict``
/// names the setting that differs. Without this, a `latchkey.json` naming the same
/// provider with another `base_url` (a cloned repository's, say) would have the session
/// token sent to that server, and its refusal would log the user out.
///
/// Secrets never appear in an identity: pass them through ``digest(_:)``.
public struct EndpointIdentity: Sendable, Hashable, CustomStringConvertible {
    /// One setting of the identity, e.g. `base_url` = `https://api.stytch.com/`.
    public struct Component: Sendable, Hashable {
        /// The setting's name as the configuration spells it (`base_url`, `client_id`).
        public var setting: String
        /// Its value, or ``EndpointIdentity/digest(_:)`` of it for a secret.
        public var value: String

        /// Creates a component.
        public init(_ setting: String, _ value: String) {
            self.setting = setting
            self.value = value
        }
    }

    /// The provider's registry identifier.
    public var provider: String
    /// The settings that identify the endpoint, in a fixed order.
    public var components: [Component]

    /// Creates an identity.
    public init(provider: String, _ components: [Component] = []) {
        self.provider = provider
        self.components = components
    }

    /// `sha256:` and the first 16 bytes of the SHA-256 of `secret`, in hex: enough to tell
    /// two keys apart, never enough to recover one.
    public static func digest(_ secret: String) -> String {
        "sha256:"
            + HashAlgorithm.sha256.hash(Array(secret.utf8)).prefix(16).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
    }

    /// Why a session stored under `stored` must not be used by this identity — the
    /// setting that differs, both values — or `nil` when it may. A record stored before
    /// sessions were bound (no components) may be used, and is bound when next saved.
    func conflict(withStored stored: EndpointIdentity) -> String? {
        guard stored.provider == provider else {
            return "the stored session belongs to provider \"\(stored.provider)\", not \"\(provider)\"; it was left untouched"
        }
        guard !stored.components.isEmpty, !components.isEmpty, stored.components != components else { return nil }
        let configured = Dictionary(components.map { ($0.setting, $0.value) }, uniquingKeysWith: { first, _ in first })
        let kept = Dictionary(stored.components.map { ($0.setting, $0.value) }, uniquingKeysWith: { first, _ in first })
        let names = (components.map(\.setting) + stored.components.map(\.setting)).filter { configured[$0] != kept[$0] }
        let setting = names.first ?? "?"
        return "the stored session was made with another \"\(setting)\" for provider \"\(provider)\" "
            + "(stored: \(kept[setting] ?? "none"), configured: \(configured[setting] ?? "none")); "
            + "its credentials were neither sent nor cleared. Use the configuration that made it, "
            + "or give this one its own store.namespace"
    }

    /// The identity as the vault stores it in the record's provider field: the provider,
    /// then one `setting=value` line per component (a bare provider for an empty one, the
    /// form records had before they were bound).
    var encoded: String {
        ([provider] + components.map { "\($0.setting)=\($0.value)" }).joined(separator: "\n")
    }

    /// Reads ``encoded``.
    init(encoded text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        provider = String(lines.first ?? "")
        components = lines.dropFirst().map { line in
            let bytes = Array(line.utf8)
            let equals = bytes.firstIndex(of: UInt8(ascii: "=")) ?? bytes.endIndex
            return Component(
                String(decoding: bytes[..<equals], as: UTF8.self),
                String(decoding: bytes[min(equals + 1, bytes.endIndex)...], as: UTF8.self))
        }
    }

    public var description: String {
        "\(provider)(" + components.map { "\($0.setting): \($0.value)" }.joined(separator: ", ") + ")"
    }
}
