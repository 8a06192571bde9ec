package import ArgumentParser
import FoundationEssentials
import Glibc

/// The main of both binaries (`latchkey` and `latchkey-full`): ArgumentParser's own, except
/// that a usage error names its subcommand with the tool's one `error:` prefix.
package enum ToolMain {
    /// Parses the command line against `root` and runs the command, asynchronous or not.
    /// `reportUsageError` sees every failure first, with ArgumentParser's message and exit
    /// status (the full CLI answers a usage error of `session … --json` with its JSON
    /// object too).
    package static func run(
        _ root: any ParsableCommand.Type,
        reportUsageError: @Sendable (_ error: any Error, _ message: String, _ status: Int32) -> Void = { _, _, _ in }
    ) async {
        do {
            var command = try root.parseAsRoot(nil)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error, root: root, arguments: Array(CommandLine.arguments.dropFirst()), reportUsageError: reportUsageError)
        }
    }

    /// `run` for a root whose commands are all synchronous (`latchkey-jwt`'s): no task,
    /// so the concurrency runtime starts none of its threads. `arguments` are those after
    /// the root's name (after `latchkey verify` for a root named so by `_superCommandName`).
    package static func runSynchronously(_ root: any ParsableCommand.Type, arguments: [String]) {
        do {
            var command = try root.parseAsRoot(arguments)
            try command.run()
        } catch {
            fail(error, root: root, arguments: arguments, reportUsageError: { _, _, _ in })
        }
    }

    private static func fail(
        _ error: any Error, root: any ParsableCommand.Type, arguments: [String],
        reportUsageError: (_ error: any Error, _ message: String, _ status: Int32) -> Void
    ) -> Never {
        let message = root.fullMessage(for: error)
        let status = root.exitCode(for: error)
        reportUsageError(error, message, status.rawValue)
        guard status != .success, let line = UsageError.message(message, arguments: arguments, root: root)
        else { root.exit(withError: error) }
        // The usage lines stay lines (printError would join them); the text is escaped already.
        writeStandardError(line.hasSuffix("\n") ? line : line + "\n")
        root.exit(withError: ExitCode(status.rawValue))
    }
}
