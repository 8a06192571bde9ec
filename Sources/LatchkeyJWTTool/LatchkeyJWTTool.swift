import ArgumentParser
import FoundationEssentials
import LatchkeyCLIBase

/// `latchkey-jwt`: what `latchkey inspect` and `latchkey verify` run (the `latchkey`
/// launcher becomes this process for them; Sources/LatchkeyLauncher).
///
/// A script calls them once per token, so start-up is most of their time: this binary
/// links the JWT toolkit, ArgumentParser and FoundationEssentials and nothing of the
/// sessions, the emulator, PostgreSQL, SwiftNIO or Foundation's CoreFoundation and ICU;
/// it runs synchronously, so the concurrency runtime starts no thread; and each command is
/// parsed as a root of its own named `latchkey <command>` (`_superCommandName`), for which
/// ArgumentParser skips its second parse of the command line looking for
/// `--generate-completion-script` (completion scripts come from `latchkey-full`) — a third
/// of the parse. Benchmarks/README.md, "The CLI's start-up".
@main
enum LatchkeyJWTTool {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "inspect": ToolMain.runSynchronously(Inspect.self, arguments: Array(arguments.dropFirst()))
        case "verify": ToolMain.runSynchronously(Verify.self, arguments: Array(arguments.dropFirst()))
        default: ToolMain.runSynchronously(Tool.self, arguments: arguments)
        }
    }

    /// `latchkey inspect` as a root.
    struct Inspect: ParsableCommand {
        static let configuration = LatchkeyJWTTool.root(InspectCommand.configuration)
        @OptionGroup var command: InspectCommand
        func run() throws { try command.run() }
    }

    /// `latchkey verify` as a root.
    struct Verify: ParsableCommand {
        static let configuration = LatchkeyJWTTool.root(VerifyCommand.configuration)
        @OptionGroup var command: VerifyCommand
        func run() throws { try command.run() }
    }

    /// Any other command line (this binary run by hand): the two commands under `latchkey`.
    struct Tool: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latchkey",
            abstract: "Latchkey's JWT commands (the latchkey launcher runs them).",
            subcommands: [InspectCommand.self, VerifyCommand.self]
        )
    }

    /// A command's configuration as the root of `latchkey <command>`.
    static func root(_ command: CommandConfiguration) -> CommandConfiguration {
        CommandConfiguration(
            commandName: command.commandName, _superCommandName: "latchkey", abstract: command.abstract,
            discussion: command.discussion)
    }
}
