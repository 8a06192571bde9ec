import ArgumentParser
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets wipe`: removes every entry of the namespace.
    struct Wipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wipe",
            abstract: "Delete every secret of the namespace.",
            discussion: "A corrupted or undecryptable file is never deleted; --reset moves it aside as <file>.corrupt-<timestamp> instead."
        )

        @OptionGroup var options: StoreOptions

        @Flag(help: "Move the namespace's data file aside (even a corrupted one) before wiping.")
        var reset = false

        func run() async throws {
            try await SecretsCommand.running {
                let store = try options.makeStore()
                if reset {
                    let file: EncryptedFileSecretStore? = (store as? EncryptedFileSecretStore) ?? (store as? LayeredSecretStore)?.file
                    if let file, let aside = try await file.reset() {
                        SecretsCommand.printError("moved \(file.path) aside to \(aside)")
                    }
                }
                try await store.removeAll()
            }
        }
    }
}
