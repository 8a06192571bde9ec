import ArgumentParser
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets list`: the entry names of a namespace, one per line.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the names of the stored secrets.")

        @OptionGroup var options: StoreOptions

        func run() async throws {
            let names = try await SecretsCommand.running { try await options.makeStore().names() }
            for name in names { print(TerminalText.escape(name)) }
        }
    }
}
