import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// latchkey.json, LATCHKEY_* overrides, and the provider registry.
@Suite(.noSecretLeaks) struct ConfigurationTests {
    static let file = #"""
        {
          "provider": "stytch",
          "settings": { "public_token": "public-token-test-123", "session_minutes": 60, "b2b": false },
          "store": { "backend": "memory", "namespace": "com.example.app" },
          "session": { "heartbeat_seconds": 120, "session_duration_minutes": 60, "renew_proactively": false, "minimum_token_ttl_seconds": 10 }
        }
        """#

    @Test func parsesEveryKey() throws {
        let configuration = try LatchkeyConfiguration.parse(Array(Self.file.utf8))
        #expect(configuration.provider == "stytch")
        #expect(try configuration.settings.required("public_token") == "public-token-test-123")
        #expect(try configuration.settings.integer("session_minutes") == 60)
        #expect(try configuration.settings.boolean("b2b") == false)
        #expect(configuration.store == StoreSettings(backend: .memory, namespace: "com.example.app"))
        #expect(configuration.session.heartbeatInterval == .seconds(120))
        #expect(configuration.session.sessionDuration == .seconds(3600))
        #expect(configuration.session.renewsProactively == false)
        #expect(configuration.session.minimumTokenTTL == .seconds(10))
    }

    @Test func theProcessEnvironmentIsItsLatchkeyVariablesAsProcessInfoHasThem() throws {
        setenv("LATCHKEY_CONFIGURATION_TEST_VALUE", "a=b=c é", 1)
        let variables = LatchkeyConfiguration.processEnvironment
        #expect(variables["LATCHKEY_CONFIGURATION_TEST_VALUE"] == "a=b=c é", "split at the first =")
        #expect(variables.keys.allSatisfy { $0.hasPrefix("LATCHKEY_") })
        #expect(variables["PATH"] == nil)
        let expected = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("LATCHKEY_") }
        #expect(variables == expected)
    }

    @Test func environmentOverridesTheFile() throws {
        let configuration = try LatchkeyConfiguration.parse(
            Array(Self.file.utf8),
            environment: [
                "LATCHKEY_PROVIDER": "auth0", "LATCHKEY_SETTING_DOMAIN": "example.eu.auth0.com",
                "LATCHKEY_SETTING_PUBLIC_TOKEN": "public-token-live-9", "LATCHKEY_STORE_BACKEND": "file",
                "LATCHKEY_STORE_NAMESPACE": "other", "LATCHKEY_SESSION_HEARTBEAT_SECONDS": "0",
                "LATCHKEY_SESSION_DURATION_MINUTES": "5", "LATCHKEY_SESSION_RENEW_PROACTIVELY": "yes",
            ])
        #expect(configuration.provider == "auth0")
        #expect(configuration.settings["domain"] == "example.eu.auth0.com")
        #expect(configuration.settings["public_token"] == "public-token-live-9")
        #expect(configuration.store.backend == .file)
        #expect(configuration.store.namespace == "other")
        #expect(configuration.session.heartbeatInterval == nil)
        #expect(configuration.session.sessionDuration == .seconds(300))
        #expect(configuration.session.renewsProactively)
    }

    @Test func theSecretServiceIsABackendOfTheFileAndTheEnvironment() throws {
        let file = #"{"provider": "stytch", "store": {"backend": "secret-service"}}"#
        #expect(try LatchkeyConfiguration.parse(Array(file.utf8)).store.backend == .secretService)
        let overridden = try LatchkeyConfiguration.parse(Array(Self.file.utf8), environment: ["LATCHKEY_STORE_BACKEND": "secret-service"])
        #expect(overridden.store.backend == .secretService)
        let wrong = #"{"provider": "stytch", "store": {"backend": "secretservice"}}"#
        #expect {
            _ = try LatchkeyConfiguration.parse(Array(wrong.utf8))
        } throws: { error in
            (error as? AuthError)?.message.contains("secret-service") == true
        }
    }

    @Test func anotherProviderStartsFromNoneOfTheFilesSettings() throws {
        let other = try LatchkeyConfiguration.parse(Array(Self.file.utf8), environment: ["LATCHKEY_PROVIDER": "auth0"])
        #expect(other.settings["public_token"] == nil, "Stytch's settings stay with Stytch")
        #expect(other.settings["session_minutes"] == nil)
        #expect(other.store.namespace == "com.example.app", "the store is not the provider's")
        let same = try LatchkeyConfiguration.parse(Array(Self.file.utf8), environment: ["LATCHKEY_PROVIDER": "stytch"])
        #expect(same.settings["public_token"] == "public-token-test-123", "naming the file's own provider keeps its settings")
    }

    @Test func loadsFromAFileOrTheEnvironmentAlone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/latchkey.json"
        try Data(Self.file.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try LatchkeyConfiguration.load(path: path, environment: [:]).provider == "stytch")
        #expect(try LatchkeyConfiguration.load(environment: ["LATCHKEY_CONFIG": path]).provider == "stytch")
        #expect(throws: AuthError.self, "a named file that is missing is an error") {
            _ = try LatchkeyConfiguration.load(path: nil, environment: ["LATCHKEY_CONFIG": directory + "/none.json", "LATCHKEY_PROVIDER": "x"])
        }
        // No latchkey.json in the working directory (the package root): the environment alone is enough.
        #expect(!FileManager.default.fileExists(atPath: LatchkeyConfiguration.defaultFileName))
        let fromEnvironment: LatchkeyConfiguration? = try LatchkeyConfiguration.load(environment: [
            "LATCHKEY_PROVIDER": "x", "LATCHKEY_SETTING_A": "b",
        ])
        #expect(fromEnvironment?.provider == "x")
        #expect(fromEnvironment?.settings["a"] == "b")
    }

    @Test(arguments: [
        (#"{"settings": {}}"#, "\"provider\""),
        (#"{"provider": "stytch", "sesion": {}}"#, "\"sesion\""),
        (#"{"provider": "stytch", "store": {"backend": "floppy"}}"#, "store.backend"),
        (#"{"provider": "stytch", "store": {"namspace": "x"}}"#, "store.namspace"),
        (#"{"provider": "stytch", "session": {"heartbeat_seconds": "often"}}"#, "session.heartbeat_seconds"),
        (#"{"provider": "stytch", "session": {"session_duration_minutes": 0}}"#, "session.session_duration_minutes"),
        (#"{"provider": "stytch", "session": {"session_duration_minutes": 1e13}}"#, "session.session_duration_minutes"),
        (#"{"provider": "stytch", "session": {"heartbeat_seconds": 1e19}}"#, "session.heartbeat_seconds"),
        (#"{"provider": "stytch", "settings": {"port": 1e19}}"#, "settings.port"),
        (#"{"provider": "stytch", "settings": {"port": -1e300}}"#, "settings.port"),
        (#"{"provider": "stytch", "settings": {"port": 2.5}}"#, "settings.port"),
        (#"{"provider": "stytch", "settings": {"public_token": ["a"]}}"#, "settings.public_token"),
        (#"["provider"]"#, "JSON object"),
        (#"{"provider": "stytch",}"#, "not valid JSON"),
    ])
    func errorsNameTheKey(json: String, key: String) {
        #expect {
            _ = try LatchkeyConfiguration.parse(Array(json.utf8))
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.code == .configuration && error.message.contains(key)
        }
    }

    @Test func aMissingSettingNamesTheKeyAndItsVariable() {
        let settings = ProviderSettings(["domain": "x"], provider: "auth0")
        #expect {
            _ = try settings.required("client_id")
        } throws: { error in
            let message = (error as? AuthError)?.message ?? ""
            return message.contains("settings.client_id") && message.contains("LATCHKEY_SETTING_CLIENT_ID") && message.contains("auth0")
        }
        #expect(throws: AuthError.self) { _ = try ProviderSettings(["base_url": "ftp://x"]).url("base_url") }
        #expect(throws: AuthError.self) { _ = try ProviderSettings(["n": "ten"]).integer("n") }
    }

    @Test func theRegistryBuildsTheConfiguredClient() async throws {
        let registry = ProviderRegistry()
        let clock = ManualClock()
        registry.register(
            ProviderFactory(identifier: "scripted", schema: ProviderSettingsSchema([.init("secret", required: true, secret: true)])) { context in
                _ = try context.settings.required("secret")
                return ScriptedProvider(clock: context.clock)
            })
        #expect(registry.identifiers == ["scripted"])
        let unknown = LatchkeyConfiguration(provider: "stytch")
        #expect {
            _ = try registry.makeClient(unknown)
        } throws: { error in
            let message = (error as? AuthError)?.message ?? ""
            return message.contains("\"stytch\"") && message.contains("scripted")
        }
        let missing = LatchkeyConfiguration(provider: "scripted", store: StoreSettings(backend: .memory))
        #expect { _ = try registry.makeClient(missing) } throws: { ($0 as? AuthError)?.message.contains("settings.secret") == true }

        let configuration = LatchkeyConfiguration(
            provider: "scripted", settings: ["secret": "x"],
            store: StoreSettings(backend: .memory, namespace: "registry-test"),
            session: SessionOptions(heartbeatInterval: nil))
        let client = try registry.makeClient(configuration, clock: clock)
        try await client.start()
        try await client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(client.state == .established)
        #expect(client.provider.identifier == "scripted")
        await client.shutdown()
    }
}
