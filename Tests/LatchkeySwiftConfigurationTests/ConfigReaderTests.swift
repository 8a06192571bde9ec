import Configuration
import Latchkey
import LatchkeySwiftConfiguration
import Testing

/// Latchkey configured from the app's own swift-configuration reader.
@Suite struct ConfigReaderTests {
    struct NoProvider: Error {}

    static func registry() -> ProviderRegistry {
        let registry = ProviderRegistry()
        let schema = ProviderSettingsSchema([.init("domain", required: true), .init("client_secret", secret: true),
                                             .init("leeway", .integer), .init("auto_extend", .boolean)])
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
}
