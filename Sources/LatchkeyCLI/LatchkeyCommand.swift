import ArgumentParser
import Foundation

/// `latchkey`: inspect, verify and sign JWTs, manage stored secrets.
///
/// Every command names itself (`commandName:`): left out, ArgumentParser derives the name
/// from the type with `String(describing:)`, whose protocol-conformance lookups scan every
/// conformance record in the binary — two thirds of a `verify`'s start-up before this
/// (Benchmarks/README.md, "The CLI's start-up").
@main
struct LatchkeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Latchkey: JWT tools, secret storage and sessions for Stytch, Auth0 and social.plus.",
        version: "0.1.0",
        subcommands: [
            Inspect.self,
            Verify.self,
            Sign.self,
            Keygen.self,
            JWKSCommand.self,
            SecretsCommand.self,
            SessionCommand.self,
            DemoCommand.self,
            EmulatorCommand.self,
        ]
    )

    /// ArgumentParser's own main, except that a usage error names its subcommand with the
    /// tool's one `error:` prefix, and a usage error of `session … --json` is answered
    /// with its JSON object too (a script reads standard output).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let message = fullMessage(for: error)
            let status = exitCode(for: error)
            SessionCommand.reportUsageErrorAsJSON(error, message: message, status: status.rawValue)
            guard status != .success, let line = UsageError.message(message, arguments: Array(CommandLine.arguments.dropFirst()), root: Self.self)
            else { exit(withError: error) }
            // The usage lines stay lines (printError would join them); the text is escaped already.
            fflush(nil)
            FileHandle.standardError.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
            exit(withError: ExitCode(status.rawValue))
        }
    }
}
