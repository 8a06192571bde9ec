import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets set NAME`: stores the bytes read from standard input.
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store a secret read from standard input.",
            discussion: "Every byte of standard input is stored as is, including any trailing newline (use printf, or echo -n)."
        )

        @OptionGroup var options: StoreOptions

        @Argument(help: "The entry name.")
        var name: String

        func validate() throws {
            try SecretsCommand.validateEntryName(name)
        }

        func run() async throws {
            // No backend stores more than the file store's 64 MiB: read no further.
            let limit = EncryptedFileSecretStore.maxFileBytes
            let input = try StandardInput.read(limit: limit)
            guard !input.exceedsLimit else {
                SecretsCommand.printError(
                    "error: the value on standard input is larger than \(limit) bytes (64 MiB), more than any store holds; nothing was stored")
                throw ExitCode(1)
            }
            let value = input.bytes
            let store = try await SecretsCommand.running {
                let store = try options.makeStore()
                try await store.set(name, value)
                return store
            }
            SecretsCommand.printError(
                "stored \"\(name)\" (\(value.count) bytes) in the \(store.backendName) store, namespace \"\(options.namespace)\"")
        }
    }
}
