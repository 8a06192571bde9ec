import ArgumentParser
import Foundation
import Latchkey

/// `latchkey session`: the whole life of a session from the command line — log in,
/// look, get a token, renew, log out — with the app's own `latchkey.json`.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Log in, inspect, renew and log out of a session with the configured provider.",
        discussion: """
        The provider, its settings and the store come from latchkey.json (--config, $LATCHKEY_CONFIG, or ./latchkey.json) \
        and LATCHKEY_* environment variables; --provider and --setting override them. Every subcommand takes --json: \
        one JSON object on standard output, errors included ({"error": {...}, "exit_status": N}).

        \(SessionExitStatus.help)
        """,
        subcommands: [Login.self, Status.self, Token.self, Refresh.self, Logout.self]
    )
}

extension SessionCommand {
    /// Options every session subcommand shares.
    struct ClientOptions: ParsableArguments {
        @Option(name: .long, help: "The configuration file (default: $LATCHKEY_CONFIG or ./latchkey.json).")
        var config: String?

        @Option(name: .long, help: "The provider identifier, overriding the file (stytch, stytch-b2b, auth0, socialplus).")
        var provider: String?

        @Option(name: .long, help: ArgumentHelp("A provider setting, overriding the file (repeatable).", valueName: "name=value"))
        var setting: [String] = []

        func validate() throws {
            for item in setting where !item.contains("=") {
                throw ValidationError("--setting takes name=value; got \"\(TerminalText.escape(item))\"")
            }
        }

        /// The configuration: the file, the environment, then these options.
        func configuration() throws -> LatchkeyConfiguration {
            var environment = ProcessInfo.processInfo.environment
            if let provider { environment["LATCHKEY_PROVIDER"] = provider }
            for item in setting {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                environment[ProviderSettings.environmentName(of: String(parts[0]))] = String(parts[1])
            }
            do {
                return try LatchkeyConfiguration.load(path: config, environment: environment)
            } catch {
                throw SessionFailure.configuration(error.message)
            }
        }

        /// A client for the configuration, with the adapters this tool links; no
        /// heartbeat or background renewal (a command runs and exits).
        func makeClient() throws -> (AuthClient, LatchkeyConfiguration) {
            var configuration = try configuration()
            configuration.session.heartbeatInterval = nil
            configuration.session.renewsProactively = false
            let registry = ProviderRegistry()
            for factory in LinkedAdapters.factories { registry.register(factory) }
            do {
                return (try registry.makeClient(configuration), configuration)
            } catch let error as AuthError {
                throw SessionFailure(error, loggingIn: false)
            }
        }
    }
}

extension SessionCommand {
    /// Prints a usage error of `latchkey session … --json` as its JSON object (the
    /// message stays on standard error as well); does nothing otherwise.
    static func reportUsageErrorAsJSON(_ error: any Error, message: String, status: Int32) {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "session", arguments.contains("--json"), status == SessionExitStatus.usage else { return }
        var line = message.split(separator: "\n").first.map(String.init) ?? message
        if line.hasPrefix("Error: ") { line.removeFirst("Error: ".count) }
        let failure = SessionFailure.usage(line)
        SessionRun.printJSON(["error": .object(failure.object), "exit_status": .number(Double(status))])
    }
}
