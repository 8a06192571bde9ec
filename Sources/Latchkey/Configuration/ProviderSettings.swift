public import Foundation

/// A provider's settings (`public_token`, `domain`, `client_id`, …) as strings, with
/// typed reads whose errors name the missing or malformed key.
///
/// Settings come from the `settings` object of `latchkey.json`, from
/// `LATCHKEY_SETTING_<NAME>` environment variables (`LATCHKEY_SETTING_PUBLIC_TOKEN` sets
/// `public_token`), or from code.
public struct ProviderSettings: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The settings by name.
    public var values: [String: String]
    /// The provider identifier, for error messages.
    public var provider: String
    /// The settings written in the configuration file itself (not from the
    /// environment): a secret among them draws a warning.
    public var inlineKeys: Set<String>

    /// Creates settings.
    public init(_ values: [String: String] = [:], provider: String = "", inlineKeys: Set<String> = []) {
        self.values = values
        self.provider = provider
        self.inlineKeys = inlineKeys
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The setting `key`, or `nil`.
    public subscript(key: String) -> String? { values[key] }

    /// The setting `key`, which must be present and non-empty.
    ///
    /// - Throws: ``AuthError/Code/configuration`` naming the key and its environment variable.
    public func required(_ key: String) throws(AuthError) -> String {
        guard let value = values[key], !value.isEmpty else {
            throw AuthError(.configuration, "missing setting \"settings.\(key)\"\(forProvider) (or set \(Self.environmentName(of: key)))")
        }
        return value
    }

    /// The setting `key` as an absolute https URL (plain http only to a loopback
    /// address), or `nil` when absent.
    public func url(_ key: String) throws(AuthError) -> URL? {
        guard let text = values[key] else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            throw AuthError(.configuration, "setting \"settings.\(key)\"\(forProvider) is not an absolute http(s) URL")
        }
        // Credentials go to this URL: TLS, except to a loopback address (the emulator).
        try SecureURL.check(url, what: "setting \"settings.\(key)\"\(forProvider)")
        return url
    }

    /// The setting `key` as an integer, or `nil` when absent.
    public func integer(_ key: String) throws(AuthError) -> Int? {
        guard let text = values[key] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw AuthError(.configuration, "setting \"settings.\(key)\"\(forProvider) is not an integer")
        }
        return value
    }

    /// The setting `key` as a boolean (`true`/`false`/`1`/`0`/`yes`/`no`), or `nil` when absent.
    public func boolean(_ key: String) throws(AuthError) -> Bool? {
        guard let text = values[key] else { return nil }
        guard let value = LatchkeyConfiguration.parseBoolean(text) else {
            throw AuthError(.configuration, "setting \"settings.\(key)\"\(forProvider) is not a boolean")
        }
        return value
    }

    /// The environment variable that overrides setting `key`.
    public static func environmentName(of key: String) -> String {
        "LATCHKEY_SETTING_" + key.uppercased()
    }

    private var forProvider: String { provider.isEmpty ? "" : " for provider \"\(provider)\"" }
}
