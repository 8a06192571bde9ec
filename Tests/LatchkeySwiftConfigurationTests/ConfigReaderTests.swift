import Configuration
import Latchkey
import LatchkeySwiftConfiguration
import Testing

/// Latchkey configured from the app's own swift-configuration reader.
@Suite struct ConfigReaderTests {
    struct NoProvider: Error {}

    static func registry() -> ProviderRegistry {
        let registry = ProviderRegistry()
        let schema = ProviderSettingsSchema([
            .init("domain", required: true), .init("client_secret", secret: true),
            .init("leeway", .integer), .init("auto_extend", .boolean),
        ])
        registry.register(ProviderFactory(identifier: "example", schema: schema) { _ in throw NoProvider() })
        return registry
    }

    @Test func readsEveryKeyThroughTheReaderScopedToLatchkey() throws {
        let provider = InMemoryProvider(values: [
            ["latchkey", "provider"]: "example",
            ["latchkey", "settings", "domain"]: "tenant.example.com",
            ["latchkey", "settings", "client_secret"]: "s3cret",
            ["latchkey", "settings", "leeway"]: 30,
            ["latchkey", "settings", "auto_extend"]: true,
            ["latchkey", "store", "backend"]: "file",
            ["latchkey", "store", "namespace"]: "com.example.app",
            ["latchkey", "session", "heartbeat_seconds"]: 60,
            ["latchkey", "session", "renew_proactively"]: false,
        ])
        let config = ConfigReader(provider: provider).scoped(to: "latchkey")
        let configuration = try LatchkeyConfiguration(config: config, registry: Self.registry())
        #expect(configuration.provider == "example")
        #expect(configuration.settings["domain"] == "tenant.example.com")
        #expect(configuration.settings["client_secret"] == "s3cret")
        #expect(configuration.settings["leeway"] == "30")
        #expect(configuration.settings["auto_extend"] == "true")
        #expect(configuration.settings.inlineKeys.isEmpty, "read as secrets, not written inline")
        #expect(configuration.store.backend == .file)
        #expect(configuration.store.namespace == "com.example.app")
        #expect(configuration.session.heartbeatInterval == .seconds(60))
        #expect(!configuration.session.renewsProactively)
    }

    @Test func errorsNameTheKey() {
        let registry = Self.registry()
        let cases: [([AbsoluteConfigKey: ConfigValue], String)] = [
            ([:], "provider"),
            (["provider": "nope"], "nope"),
            (["provider": "example"], "settings.domain"),
            (["provider": "example", "settings.domain": "d", "store.backend": "floppy"], "store.backend"),
            (["provider": "example", "settings.domain": "d", "session.heartbeat_seconds": -1], "session.heartbeat_seconds"),
        ]
        for (values, key) in cases {
            let config = ConfigReader(provider: InMemoryProvider(values: values))
            #expect {
                _ = try LatchkeyConfiguration(config: config, registry: registry)
            } throws: { error in
                ((error as? AuthError)?.message ?? "").contains(key)
            }
        }
    }

    @Test func theEnvironmentOverridesTheReaderAsItOverridesAFile() throws {
        let registry = Self.registry()
        let values: [AbsoluteConfigKey: ConfigValue] = [
            "provider": "example", "settings.domain": "reader.example.com", "settings.leeway": 30,
            "store.namespace": "from-the-reader", "session.heartbeat_seconds": 60,
        ]
        let environment = [
            "LATCHKEY_SETTING_DOMAIN": "environment.example.com", "LATCHKEY_SETTING_CLIENT_SECRET": "s3cret",
            "LATCHKEY_STORE_NAMESPACE": "from-the-environment", "LATCHKEY_STORE_BACKEND": "memory",
            "LATCHKEY_SESSION_HEARTBEAT_SECONDS": "0",
        ]
        let configuration = try LatchkeyConfiguration(
            config: ConfigReader(provider: InMemoryProvider(values: values)), registry: registry,
            environment: environment)
        #expect(configuration.settings["domain"] == "environment.example.com", "LATCHKEY_SETTING_<NAME> replaces the reader's value")
        #expect(configuration.settings["client_secret"] == "s3cret")
        #expect(configuration.settings["leeway"] == "30", "what the environment does not name stays the reader's")
        #expect(configuration.store.namespace == "from-the-environment")
        #expect(configuration.store.backend == .memory)
        #expect(configuration.session.heartbeatInterval == nil, "0 disables the heartbeat, as in a file")
        #expect(configuration.settings.inlineKeys.isEmpty)

        // The same overrides through the file loader give the same configuration: one order.
        let file =
            #"{"provider": "example", "settings": {"domain": "reader.example.com", "leeway": 30}, "store": {"namespace": "from-the-reader"}, "session": {"heartbeat_seconds": 60}}"#
        var parsed = try LatchkeyConfiguration.parse(Array(file.utf8), environment: environment)
        parsed.settings.inlineKeys = []
        #expect(parsed == configuration)
    }

    @Test func anotherProviderInTheEnvironmentTakesNoneOfTheReadersSettings() throws {
        let registry = Self.registry()
        registry.register(ProviderFactory(identifier: "other", schema: ProviderSettingsSchema([.init("region")])) { _ in throw NoProvider() })
        let values: [AbsoluteConfigKey: ConfigValue] = ["provider": "example", "settings.domain": "reader.example.com", "settings.leeway": 30]
        let config = ConfigReader(provider: InMemoryProvider(values: values))
        let configuration = try LatchkeyConfiguration(
            config: config, registry: registry,
            environment: ["LATCHKEY_PROVIDER": "other", "LATCHKEY_SETTING_REGION": "eu"])
        #expect(configuration.provider == "other")
        #expect(configuration.settings.values == ["region": "eu"], "the reader's settings are the other provider's")
        // The environment alone can name the provider.
        let fromEnvironment = try LatchkeyConfiguration(
            config: ConfigReader(provider: InMemoryProvider(values: [:])), registry: registry,
            environment: ["LATCHKEY_PROVIDER": "other"])
        #expect(fromEnvironment.provider == "other")
        #expect {
            _ = try LatchkeyConfiguration(config: config, registry: registry, environment: ["LATCHKEY_PROVIDER": "nope"])
        } throws: { error in
            ((error as? AuthError)?.message ?? "").contains("nope")
        }
    }
}
