internal import Foundation

/// The settings an adapter takes: names, types, which are required and which are
/// secrets. The registry checks a configuration against it before building the
/// adapter — unknown keys (typos), missing required keys and malformed values are
/// errors naming the key — and the build plugin checks `latchkey.json` with it.
public struct ProviderSettingsSchema: Sendable, Hashable {
    /// The type of a setting's value.
    public enum Kind: String, Sendable, Hashable {
        /// Any text.
        case string
        /// A whole number.
        case integer
        /// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`).
        case boolean
        /// An absolute http(s) URL.
        case url
    }

    /// One setting.
    public struct Key: Sendable, Hashable {
        /// The name, as written in `settings` (`public_token`).
        public var name: String
        /// The value's type.
        public var kind: Kind
        /// Whether the configuration must give it.
        public var isRequired: Bool
        /// Whether it is a secret: read it from the environment or a file; written
        /// inline in the configuration file, it draws a warning.
        public var isSecret: Bool
        /// What it is, one line, for errors and documentation.
        public var summary: String

        /// Creates a key.
        public init(_ name: String, _ kind: Kind = .string, required: Bool = false, secret: Bool = false, summary: String = "") {
            self.name = name
            self.kind = kind
            isRequired = required
            isSecret = secret
            self.summary = summary
        }
    }

    /// The settings, in documentation order.
    public var keys: [Key]

    /// Creates a schema.
    public init(_ keys: [Key]) { self.keys = keys }

    /// Checks `settings`.
    ///
    /// - Parameters:
    ///   - settings: the provider's settings, from the file, the environment or code.
    ///   - deferringSecrets: a missing required secret is not an error (a build-time
    ///     check: the secret comes from the environment when the app runs).
    /// - Returns: warnings (secrets written inline in the configuration file).
    /// - Throws: ``AuthError/Code/configuration`` naming the first offending key.
    public func check(_ settings: ProviderSettings, deferringSecrets: Bool = false) throws(AuthError) -> [String] {
        let known = Dictionary(keys.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in settings.values.keys.sorted() where known[name] == nil {
            let expected = keys.map(\.name).joined(separator: ", ")
            throw AuthError(
                .configuration,
                "unknown setting \"settings.\(name)\"\(Self.forProvider(settings)) (expected one of \(expected.isEmpty ? "none" : expected))")
        }
        var warnings: [String] = []
        for key in keys {
            guard settings[key.name] != nil else {
                if key.isRequired, !(deferringSecrets && key.isSecret) { _ = try settings.required(key.name) }
                continue
            }
            switch key.kind {
            case .string: if key.isRequired { _ = try settings.required(key.name) }
            case .integer: _ = try settings.integer(key.name)
            case .boolean: _ = try settings.boolean(key.name)
            case .url: _ = try settings.url(key.name)
            }
            if key.isSecret, settings.inlineKeys.contains(key.name) {
                warnings.append(
                    "setting \"settings.\(key.name)\"\(Self.forProvider(settings)) is a secret written in the configuration file; set \(ProviderSettings.environmentName(of: key.name)) instead"
                )
            }
        }
        return warnings
    }

    private static func forProvider(_ settings: ProviderSettings) -> String {
        settings.provider.isEmpty ? "" : " for provider \"\(settings.provider)\""
    }
}
