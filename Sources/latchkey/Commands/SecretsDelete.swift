import ArgumentParser
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets delete NAME`: removes one entry; exit 1 if there was none.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a stored secret.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The entry name.")
        var name: String

        func validate() throws {
            try SecretsCommand.validateEntryName(name)
        }

        func run() async throws {
            let removed = try await SecretsCommand.running { try await options.makeStore().remove(name) }
            guard removed else {
                SecretsCommand.printError("error: no secret named \"\(name)\" in namespace \"\(options.namespace)\"")
                throw ExitCode(1)
            }
        }
    }
}
