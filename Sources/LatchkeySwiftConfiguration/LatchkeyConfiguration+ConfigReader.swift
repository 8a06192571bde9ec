public import Configuration
public import Latchkey
internal import LatchkeyJWT

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
    /// - Throws: ``/Latchkey/AuthError/Code/configuration``.
    public init(config: ConfigReader, registry: ProviderRegistry = .shared) throws(AuthError) {
        guard let provider = config.string(forKey: "provider"), !provider.isEmpty else {
            throw AuthError(.configuration, "missing configuration key \"provider\"")
        }
        guard let factory = registry.factory(for: provider) else {
            let known = registry.identifiers
            throw AuthError(.configuration, "unknown provider \"\(provider)\" in key \"provider\"; registered: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }

        // Store and session through the file format's own parser and checks.
        var object: JSONObject = ["provider": .string(provider)]
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
        var configuration = try LatchkeyConfiguration.parse(JSONValue.object(object).jsonBytes, source: "the configuration reader", environment: [:])

        // Settings by the provider's schema, typed, secrets as secrets.
        var values: [String: String] = [:]
        for key in factory.schema.keys {
            let path = ConfigKey(["settings", key.name])
            let value: String? = switch key.kind {
            case .string, .url: config.string(forKey: path, isSecret: key.isSecret)
            case .integer: config.int(forKey: path, isSecret: key.isSecret).map(String.init)
            case .boolean: config.bool(forKey: path, isSecret: key.isSecret).map(String.init)
            }
            if let value { values[key.name] = value }
        }
        configuration.settings = ProviderSettings(values, provider: provider)
        _ = try registry.check(configuration)
        self = configuration
    }
}
