internal import Foundation
internal import LatchkeyJSON

#if canImport(Glibc)
internal import Glibc
#endif

/// Everything needed to build an ``AuthClient``: the provider and its settings, the
/// store and the session options.
///
/// Load it from `latchkey.json`, let `LATCHKEY_*` environment variables override the
/// file, or build it in code:
///
/// ```json
/// {
///   "provider": "stytch",
///   "settings": { "public_token": "public-token-test-…" },
///   "store": { "backend": "automatic", "namespace": "com.example.app" },
///   "session": { "heartbeat_seconds": 180, "session_duration_minutes": 60 }
/// }
/// ```
///
/// Environment: `LATCHKEY_CONFIG` (the file's path), `LATCHKEY_PROVIDER`,
/// `LATCHKEY_SETTING_<NAME>`, `LATCHKEY_STORE_BACKEND`, `LATCHKEY_STORE_NAMESPACE`,
/// `LATCHKEY_STORE_DATA_DIRECTORY`, `LATCHKEY_STORE_CONFIG_DIRECTORY`,
/// `LATCHKEY_STORE_KEY_FILE`, `LATCHKEY_SESSION_HEARTBEAT_SECONDS` (0 disables it),
/// `LATCHKEY_SESSION_DURATION_MINUTES`, `LATCHKEY_SESSION_RENEW_PROACTIVELY`,
/// `LATCHKEY_SESSION_MINIMUM_TOKEN_TTL_SECONDS`, `LATCHKEY_SESSION_LEEWAY_SECONDS`.
///
/// One order for every way of loading (``load(path:environment:)``, ``parse(_:source:environment:)``
/// and the build plugin's `bundled`): the file, then the environment, each variable
/// replacing its key. A `LATCHKEY_PROVIDER` other than the file's provider starts from
/// none of the file's `settings` (they are the other provider's); `store` and `session`
/// still apply.
///
/// Unknown keys in the file are errors (a typo must not be silently ignored); every
/// error names the key.
public struct LatchkeyConfiguration: Sendable, Hashable {
    /// The provider identifier, as registered in a ``ProviderRegistry``.
    public var provider: String
    /// The provider's settings.
    public var settings: ProviderSettings
    /// The secret store.
    public var store: StoreSettings
    /// The session options.
    public var session: SessionOptions
    /// The file the configuration was read from, when it came from one.
    public var file: String?
    /// That file's permission bits (`0o600`), when it came from one: a secret in a file
    /// others can read draws a warning.
    public var fileMode: UInt32?

    /// Creates a configuration in code.
    public init(
        provider: String, settings: ProviderSettings = [:], store: StoreSettings = StoreSettings(),
        session: SessionOptions = SessionOptions()
    ) {
        self.provider = provider
        self.settings = settings
        self.settings.provider = provider
        self.store = store
        self.session = session
    }

    /// The default file name, looked up in the current directory.
    public static let defaultFileName = "latchkey.json"

    /// Loads `path` (default: `$LATCHKEY_CONFIG`, else `latchkey.json` in the current
    /// directory) and applies the environment's overrides. A missing default file is
    /// fine when the environment names the provider; a missing named file is an error.
    ///
    /// The lookup order is `path`, then `LATCHKEY_CONFIG`, then `./latchkey.json`. The
    /// last is found, not chosen: it is used only when it belongs to the user running the
    /// program and no one else can write to it. Pin a configuration by naming its path.
    ///
    /// - Throws: ``AuthError/Code/configuration`` naming the offending key or file, or
    ///   refusing a `./latchkey.json` of another user or writable by others.
    public static func load(
        path: String? = nil,
        environment: [String: String] = processEnvironment
    ) throws(AuthError) -> LatchkeyConfiguration {
        let explicit = path ?? environment["LATCHKEY_CONFIG"]
        let file = explicit ?? defaultFileName
        switch ConfigurationFile.read(file) {
        case .success(let contents):
            if explicit == nil, let refusal = contents.implicitUseRefusal(path: "./\(file)", user: geteuid()) {
                throw AuthError(.configuration, refusal)
            }
            var configuration = try parse(contents.bytes, source: file, environment: environment)
            configuration.file = file
            configuration.fileMode = contents.mode
            return configuration
        case .failure(.missing) where explicit == nil:
            return try parse(Array("{}".utf8), source: "the environment", environment: environment)
        case .failure(.missing):
            throw AuthError(.configuration, "cannot read the configuration file \(file): no such file")
        case .failure(.unreadable(let reason)):
            throw AuthError(.configuration, "cannot read the configuration file \(file): \(reason)")
        }
    }

    /// Parses configuration JSON and applies the environment's overrides.
    ///
    /// - Parameters:
    ///   - json: the file's bytes.
    ///   - source: how to name the JSON in errors, e.g. its path.
    ///   - environment: the `LATCHKEY_*` variables to apply; none by default.
    public static func parse(
        _ json: [UInt8], source: String = defaultFileName,
        environment: [String: String] = [:]
    ) throws(AuthError) -> LatchkeyConfiguration {
        let root: JSONObject
        do {
            guard case .object(let object) = try JSONValue.parse(bytes: json) else {
                throw AuthError(.configuration, "\(source): the configuration must be a JSON object")
            }
            root = object
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.configuration, "\(source): not valid JSON (\(error))")
        }
        let reader = Reader(source: source)
        try reader.checkKeys(root, allowed: ["provider", "settings", "store", "session"], path: "")

        let fileProvider = try reader.string(root, "provider", path: "")
        var provider = fileProvider
        if let value = environment["LATCHKEY_PROVIDER"] { provider = value }
        guard let provider, !provider.isEmpty else {
            throw AuthError(.configuration, "\(source): missing key \"provider\" (or set LATCHKEY_PROVIDER)")
        }

        var settings: [String: String] = [:]
        var inlineKeys: Set<String> = []
        // The file's settings belong to the file's provider: another provider named in the
        // environment (or on a command line) starts from none of them, so a Stytch public
        // token never travels to Auth0 as a stray setting.
        if let object = try reader.object(root, "settings", path: ""), fileProvider == nil || fileProvider == provider {
            for member in object {
                switch member.value {
                case .string(let value): settings[member.name] = value
                case .number(let value):
                    // Exactly representable integers only: 1e19 or 2.5 is an error, never a trap.
                    guard let integer = Int64(exactly: value) else {
                        throw AuthError(
                            .configuration,
                            "\(source): \"settings.\(member.name)\" must be an integer between \(Int64.min) and \(Int64.max); got \(value)")
                    }
                    settings[member.name] = String(integer)
                case .bool(let value): settings[member.name] = String(value)
                default: throw AuthError(.configuration, "\(source): \"settings.\(member.name)\" must be a string, integer or boolean")
                }
                inlineKeys.insert(member.name)
            }
        }
        for (name, value) in environment where name.hasPrefix("LATCHKEY_SETTING_") {
            let key = name.dropFirst("LATCHKEY_SETTING_".count).lowercased()
            if !key.isEmpty {
                settings[key] = value
                inlineKeys.remove(key)
            }
        }

        var store = StoreSettings()
        if let object = try reader.object(root, "store", path: "") {
            try reader.checkKeys(object, allowed: ["backend", "namespace", "data_directory", "config_directory", "key_file"], path: "store.")
            if let backend = try reader.string(object, "backend", path: "store.") {
                store.backend = try reader.backend(backend, key: "store.backend")
            }
            if let namespace = try reader.string(object, "namespace", path: "store.") { store.namespace = namespace }
            store.dataDirectory = try reader.string(object, "data_directory", path: "store.")
            store.configDirectory = try reader.string(object, "config_directory", path: "store.")
            store.keyFile = try reader.string(object, "key_file", path: "store.")
        }
        if let value = environment["LATCHKEY_STORE_BACKEND"] { store.backend = try reader.backend(value, key: "LATCHKEY_STORE_BACKEND") }
        if let value = environment["LATCHKEY_STORE_NAMESPACE"] { store.namespace = value }
        if let value = environment["LATCHKEY_STORE_DATA_DIRECTORY"] { store.dataDirectory = value }
        if let value = environment["LATCHKEY_STORE_CONFIG_DIRECTORY"] { store.configDirectory = value }
        if let value = environment["LATCHKEY_STORE_KEY_FILE"] { store.keyFile = value }
        guard !store.namespace.isEmpty else { throw AuthError(.configuration, "\(source): \"store.namespace\" is empty") }

        var session = SessionOptions()
        var heartbeat: Int?
        var duration: Int?
        var proactive: Bool?
        var minimumTTL: Int?
        var leeway: Int?
        if let object = try reader.object(root, "session", path: "") {
            try reader.checkKeys(
                object,
                allowed: [
                    "heartbeat_seconds", "session_duration_minutes", "renew_proactively", "minimum_token_ttl_seconds",
                    "leeway_seconds",
                ],
                path: "session.")
            leeway = try reader.integer(object, "leeway_seconds", path: "session.")
            heartbeat = try reader.integer(object, "heartbeat_seconds", path: "session.")
            duration = try reader.integer(object, "session_duration_minutes", path: "session.")
            proactive = try reader.boolean(object, "renew_proactively", path: "session.")
            minimumTTL = try reader.integer(object, "minimum_token_ttl_seconds", path: "session.")
        }
        if let value = environment["LATCHKEY_SESSION_HEARTBEAT_SECONDS"] {
            heartbeat = try reader.integer(value, key: "LATCHKEY_SESSION_HEARTBEAT_SECONDS")
        }
        if let value = environment["LATCHKEY_SESSION_DURATION_MINUTES"] {
            duration = try reader.integer(value, key: "LATCHKEY_SESSION_DURATION_MINUTES")
        }
        if let value = environment["LATCHKEY_SESSION_RENEW_PROACTIVELY"] {
            guard let flag = parseBoolean(value) else { throw AuthError(.configuration, "LATCHKEY_SESSION_RENEW_PROACTIVELY is not a boolean") }
            proactive = flag
        }
        if let value = environment["LATCHKEY_SESSION_MINIMUM_TOKEN_TTL_SECONDS"] {
            minimumTTL = try reader.integer(value, key: "LATCHKEY_SESSION_MINIMUM_TOKEN_TTL_SECONDS")
        }
        if let value = environment["LATCHKEY_SESSION_LEEWAY_SECONDS"] { leeway = try reader.integer(value, key: "LATCHKEY_SESSION_LEEWAY_SECONDS") }
        let limit = 366 * 24 * 3600 * 10
        if let heartbeat {
            guard (0...limit).contains(heartbeat) else {
                throw AuthError(.configuration, "\(source): \"session.heartbeat_seconds\" must be between 0 and \(limit)")
            }
            session.heartbeatInterval = heartbeat == 0 ? nil : .seconds(heartbeat)
        }
        if let duration {
            // The provider checks its own bounds (Stytch: 5…527,040); here only what no provider takes.
            guard (1...(limit / 60)).contains(duration) else {
                throw AuthError(.configuration, "\(source): \"session.session_duration_minutes\" must be between 1 and \(limit / 60)")
            }
            session.sessionDuration = .seconds(duration * 60)
        }
        if let proactive { session.renewsProactively = proactive }
        if let minimumTTL {
            guard (0...limit).contains(minimumTTL) else {
                throw AuthError(.configuration, "\(source): \"session.minimum_token_ttl_seconds\" must be between 0 and \(limit)")
            }
            session.minimumTokenTTL = .seconds(minimumTTL)
        }
        if let leeway {
            guard (0...limit).contains(leeway) else {
                throw AuthError(.configuration, "\(source): \"session.leeway_seconds\" must be between 0 and \(limit)")
            }
            session.leeway = .seconds(leeway)
        }
        return LatchkeyConfiguration(
            provider: provider, settings: ProviderSettings(settings, provider: provider, inlineKeys: inlineKeys), store: store, session: session)
    }

    static func parseBoolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    /// Typed reads of the configuration JSON whose errors name the key.
    private struct Reader {
        let source: String

        func checkKeys(_ object: JSONObject, allowed: Set<String>, path: String) throws(AuthError) {
            for name in object.names where !allowed.contains(name) {
                throw AuthError(
                    .configuration, "\(source): unknown key \"\(path)\(name)\" (expected one of \(allowed.sorted().joined(separator: ", ")))")
            }
        }

        // Strict reads made of LatchkeyJSON's readers: a key of the wrong type is an
        // error naming it, never a silent default.
        func string(_ object: JSONObject, _ key: String, path: String) throws(AuthError) -> String? {
            guard object.isPresent(key) else { return nil }
            guard let value = object.string(key) else { throw AuthError(.configuration, "\(source): \"\(path)\(key)\" must be a string") }
            return value
        }

        func object(_ object: JSONObject, _ key: String, path: String) throws(AuthError) -> JSONObject? {
            guard object.isPresent(key) else { return nil }
            guard let value = object.object(key) else { throw AuthError(.configuration, "\(source): \"\(path)\(key)\" must be an object") }
            return value
        }

        func integer(_ object: JSONObject, _ key: String, path: String) throws(AuthError) -> Int? {
            guard object.isPresent(key) else { return nil }
            guard let value = object.integer(key), abs(value) < 1_000_000_000_000 else {
                throw AuthError(.configuration, "\(source): \"\(path)\(key)\" must be an integer")
            }
            return value
        }

        func boolean(_ object: JSONObject, _ key: String, path: String) throws(AuthError) -> Bool? {
            guard object.isPresent(key) else { return nil }
            guard let value = object.bool(key) else { throw AuthError(.configuration, "\(source): \"\(path)\(key)\" must be true or false") }
            return value
        }

        func integer(_ text: String, key: String) throws(AuthError) -> Int {
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else { throw AuthError(.configuration, "\(key) must be an integer") }
            return value
        }

        func backend(_ text: String, key: String) throws(AuthError) -> StoreSettings.Backend {
            guard let backend = StoreSettings.Backend(rawValue: text) else {
                throw AuthError(
                    .configuration,
                    "\"\(key)\" must be one of \(StoreSettings.Backend.allCases.map(\.rawValue).joined(separator: ", ")); got \"\(text)\"")
            }
            return backend
        }
    }
}
