public import Configuration
public import Foundation
public import Latchkey
internal import LatchkeyJSON

extension LatchkeyConfiguration {
    /// Reads Latchkey's configuration from the app's own `ConfigReader`
    /// (apple/swift-configuration), so an app configures Latchkey where it configures
    /// everything else: environment variables, JSON or YAML files, command-line
    /// arguments, in-memory values — in the order its providers give.
    ///
    /// Keys, relative to `config` (scope it first, e.g. `config.scoped(to: "latchkey")`):
    /// - `provider` (string, required): the registered provider identifier;
    /// - `settings.<name>`: the names the provider's settings schema lists, read with
    ///   their types; those the schema marks secret are read as secrets (redacted in the
    ///   reader's access logs);
    /// - `store.backend`, `store.namespace`, `store.data_directory`,
    ///   `store.config_directory`, `store.key_file` (strings);
    /// - `session.heartbeat_seconds`, `session.session_duration_minutes`,
    ///   `session.minimum_token_ttl_seconds`, `session.leeway_seconds` (integers),
    ///   `session.renew_proactively` (bool).
    ///
    /// The values go through the same checks as `latchkey.json` and the provider's
    /// schema; errors name the key.
    ///
    /// The `LATCHKEY_*` environment overrides then apply exactly as they apply to a file
    /// (``/Latchkey/LatchkeyConfiguration/load(path:environment:)``, the build plugin's
    /// `bundled`): the reader's values first, then `LATCHKEY_PROVIDER`,
    /// `LATCHKEY_SETTING_<NAME>`, `LATCHKEY_STORE_*`, `LATCHKEY_SESSION_*`, each replacing
    /// its key — through the same ``/Latchkey/LatchkeyConfiguration/parse(_:source:environment:)``,
    /// so there is one order for every way of loading. A `LATCHKEY_PROVIDER` other than
    /// the reader's starts from none of the reader's settings.
    ///
    /// - Parameters:
    ///   - config: the app's reader, scoped to Latchkey's keys.
    ///   - registry: where the provider's settings schema is found.
    ///   - environment: the `LATCHKEY_*` variables to apply (the process's by default;
    ///     `[:]` for none).
    /// - Throws: ``/Latchkey/AuthError/Code/configuration``.
    public init(
        config: ConfigReader, registry: ProviderRegistry = .shared,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AuthError) {
        let named = config.string(forKey: "provider").flatMap { $0.isEmpty ? nil : $0 }
        var object = JSONObject()
        if let named { object["provider"] = .string(named) }

        // Store and session through the file format's own parser and checks.
        var store = JSONObject()
        for name in ["backend", "namespace", "data_directory", "config_directory", "key_file"] {
            if let value = config.string(forKey: ConfigKey(["store", name])) { store[name] = .string(value) }
        }
        if store.count > 0 { object["store"] = .object(store) }
        var session = JSONObject()
        for name in ["heartbeat_seconds", "session_duration_minutes", "minimum_token_ttl_seconds", "leeway_seconds"] {
            if let value = config.int(forKey: ConfigKey(["session", name])) { session[name] = .number(Double(value)) }
        }
        if let value = config.bool(forKey: ConfigKey(["session", "renew_proactively"])) { session["renew_proactively"] = .bool(value) }
        if session.count > 0 { object["session"] = .object(session) }

        // Settings by the named provider's schema, typed, secrets as secrets. They are the
        // reader's provider's: `parse` drops them when the environment names another.
        if let named {
            let overridden = environment["LATCHKEY_PROVIDER"].map { !$0.isEmpty && $0 != named } ?? false
            if let factory = registry.factory(for: named) {
                var settings = JSONObject()
                for key in factory.schema.keys {
                    let path = ConfigKey(["settings", key.name])
                    let value: String? =
                        switch key.kind {
                        case .string, .url: config.string(forKey: path, isSecret: key.isSecret)
                        case .integer: config.int(forKey: path, isSecret: key.isSecret).map(String.init)
                        case .boolean: config.bool(forKey: path, isSecret: key.isSecret).map(String.init)
                        }
                    if let value { settings[key.name] = .string(value) }
                }
                if settings.count > 0 { object["settings"] = .object(settings) }
            } else if !overridden {
                throw Self.unknownProvider(named, registry: registry)
            }
        }

        // The one implementation of the overrides and their order.
        var configuration = try LatchkeyConfiguration.parse(
            JSONValue.object(object).jsonBytes, source: "the configuration reader",
            environment: environment)
        guard registry.factory(for: configuration.provider) != nil else { throw Self.unknownProvider(configuration.provider, registry: registry) }
        // Nothing here was written inline in a file someone else might read.
        configuration.settings.inlineKeys = []
        _ = try registry.check(configuration)
        self = configuration
    }

    private static func unknownProvider(_ provider: String, registry: ProviderRegistry) -> AuthError {
        let known = registry.identifiers
        return AuthError(
            .configuration,
            "unknown provider \"\(provider)\" in key \"provider\"; registered: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
    }
}
