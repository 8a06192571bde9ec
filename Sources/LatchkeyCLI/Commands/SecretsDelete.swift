import ArgumentParser
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets delete NAME`: removes one entry and says so on standard error,
    /// as `set` does; exit 1 if there was none.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a stored secret.",
            discussion:
                "Like set, it asks nothing and confirms on standard error what it did (the store and namespace), whether or not a terminal is attached; standard output stays empty."
        )

        @OptionGroup var options: StoreOptions

        @Argument(help: "The entry name.")
        var name: String

        func validate() throws {
            try SecretsCommand.validateEntryName(name)
        }

        func run() async throws {
            let (removed, store) = try await SecretsCommand.running {
                let store = try options.makeStore()
                return (try await store.remove(name), store)
            }
            guard removed else {
                SecretsCommand.printError("error: no secret named \"\(name)\" in the \(store.backendName) store, namespace \"\(options.namespace)\"")
                throw ExitCode(1)
            }
            SecretsCommand.printError("deleted \"\(name)\" from the \(store.backendName) store, namespace \"\(options.namespace)\"")
        }
    }
}
