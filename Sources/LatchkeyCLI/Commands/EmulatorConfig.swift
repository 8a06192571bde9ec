import LatchkeyEmulator
import LatchkeyJSON

/// The configuration that points the session commands (or an app) at a running emulator:
/// `latchkey emulator --print-config PROVIDER`.
enum EmulatorConfig {
    /// The emulated provider a configuration's provider needs.
    static func emulated(_ provider: String) -> EmulatorProvider? {
        switch provider.lowercased() {
        case "stytch", "stytch-b2b": .stytch
        case "auth0": .auth0
        case "socialplus", "social.plus": .socialPlus
        default: nil
        }
    }

    /// The provider's settings, in a fixed order. The Stytch app identifier is one the
    /// emulator authorizes (the SDK's `X-SDK-Client` check); Auth0's `base_url` points the
    /// adapter at the emulator while `domain` stays what tokens are issued for.
    static func settings(_ provider: String, _ emulator: Emulator) -> [(String, String)] {
        switch emulated(provider) {
        case .stytch:
            guard let stytch = emulator.stytch, let base = emulator.baseURL(for: .stytch) else { return [] }
            let authorized = emulator.seed.stytch.authorizedAppIdentifiers
            let app =
                authorized.contains(StytchSeed.defaultAppIdentifier)
                ? StytchSeed.defaultAppIdentifier : authorized.first ?? StytchSeed.defaultAppIdentifier
            return [("public_token", stytch.publicToken), ("base_url", base.absoluteString), ("app_identifier", app)]
        case .auth0:
            guard let auth0 = emulator.auth0 else { return [] }
            return [("domain", auth0.domain), ("client_id", auth0.clientID), ("base_url", auth0.baseURL.absoluteString)]
        case .socialPlus:
            guard let socialPlus = emulator.socialPlus else { return [] }
            // The emulator's key is no secret; a real one belongs in LATCHKEY_SETTING_API_KEY.
            return [("base_url", socialPlus.baseURL.absoluteString), ("api_key", socialPlus.apiKey)]
        case nil:
            return []
        }
    }

    private static func canonical(_ provider: String) -> String {
        emulated(provider) == .socialPlus ? "socialplus" : provider.lowercased()
    }

    /// A `latchkey.json`, on one line; sessions kept apart from real ones by namespace.
    static func json(_ provider: String, _ emulator: Emulator) -> JSONValue {
        var settings = JSONObject()
        for (name, value) in Self.settings(provider, emulator) { settings[name] = .string(value) }
        return .object([
            "provider": .string(canonical(provider)), "settings": .object(settings),
            "store": .object(["backend": "file", "namespace": .string("latchkey-emulator-\(canonical(provider))")]),
        ])
    }

    /// The same as `export` lines for a POSIX shell, values single-quoted.
    static func exports(_ provider: String, _ emulator: Emulator) -> String {
        var lines = ["export LATCHKEY_PROVIDER=\(quoted(canonical(provider)))"]
        for (name, value) in settings(provider, emulator) {
            lines.append("export LATCHKEY_SETTING_\(name.uppercased())=\(quoted(value))")
        }
        lines.append("export LATCHKEY_STORE_BACKEND=file")
        lines.append("export LATCHKEY_STORE_NAMESPACE=\(quoted("latchkey-emulator-\(canonical(provider))"))")
        return lines.joined(separator: "\n")
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
