import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets get NAME`: a redacted view of a secret, or its exact bytes with
    /// `--reveal`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Show a stored secret (redacted unless --reveal).")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The entry name.")
        var name: String

        @Flag(help: "Print the exact bytes of the value to standard output, with no newline.")
        var reveal = false

        func validate() throws {
            try SecretsCommand.validateEntryName(name)
        }

        func run() async throws {
            let value = try await SecretsCommand.running { try await options.makeStore().get(name) }
            guard let value else {
                SecretsCommand.printError("error: no secret named \"\(name)\" in namespace \"\(options.namespace)\"")
                throw ExitCode(1)
            }
            if reveal {
                FileHandle.standardOutput.write(Data(value))
            } else {
                print("\(TerminalText.escape(name)): <redacted, \(value.count) bytes; --reveal prints it>")
            }
        }
    }
}
