import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyBundledAdapters
import LatchkeyCLIBase
import LatchkeyEmulator
import LatchkeySecrets
import LatchkeySocialPlus
import LatchkeyStytch

/// `latchkey demo`: the life of a session with each provider, against the emulator
/// started in this process — login, state changes as they stream, a restart restored from
/// the store, an expired token renewed, Auth0's device login approved by the demo itself,
/// a social.plus ban, secure logout. Exits non-zero if any step misbehaves.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk a session through Stytch, Auth0 and social.plus against the built-in emulator."
    )

    func run() async throws {
        let emulator = try await Emulator.start()
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-demo-\(UUID().uuidString)")
        let demo = Demo(emulator: emulator, workspace: workspace)
        do {
            try await demo.stytch()
            try await demo.auth0()
            try await demo.socialPlus()
        } catch {
            await demo.cleanUp()
            await emulator.stop()
            throw fail("demo step failed: \(error)")
        }
        await demo.cleanUp()
        await emulator.stop()
        Demo.say("\nEvery step behaved. (The stores used a temporary namespace and were wiped.)")
    }
}

/// The walk-through's steps and a little printing.
struct Demo {
    let emulator: Emulator
    let workspace: URL
    let namespace = "latchkey-demo-\(UInt32.random(in: 0 ... .max))"

    static func say(_ text: String) {
        print(text)
        fflush(nil)
    }
    static func step(_ text: String) { say("\n\(Colour.bold("== \(text)"))") }

    func expect(_ condition: Bool, _ what: String) throws {
        guard condition else { throw DemoFailure(what) }
        Demo.say("   ✓ \(what)")
    }

    /// The automatic store (keyring over the encrypted file) in a private namespace.
    func store() throws -> any SecretStore {
        let configuration = SecretStoreConfiguration(
            dataDirectory: workspace.appendingPathComponent("data").path,
            configDirectory: workspace.appendingPathComponent("config").path)
        return try SecretStoreSelection.automatic(namespace: namespace, configuration: configuration).store
    }

    func client(
        _ configuration: LatchkeyConfiguration, clock: any SessionClock = SystemClock(),
        dependencies: ProviderDependencies = ProviderDependencies()
    ) throws -> AuthClient {
        let registry = ProviderRegistry()
        for factory in BundledAdapters.factories { registry.register(factory) }
        return try registry.makeClient(configuration, store: try store(), dependencies: dependencies, clock: clock)
    }

    /// Prints every state the client publishes, as it streams.
    func watch(_ client: AuthClient, _ label: String) -> Task<Void, Never> {
        Task {
            for await state in client.stateChanges { Demo.say("   \(label) state → \(state)") }
        }
    }

    func cleanUp() async {
        if let store = try? store() { try? await store.removeAll() }
        try? FileManager.default.removeItem(at: workspace)
    }
}

struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ what: String) { description = "expected: \(what)" }
}
