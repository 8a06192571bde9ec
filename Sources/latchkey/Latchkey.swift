import ArgumentParser

/// `latchkey`: inspect, verify and sign JWTs, manage stored secrets.
@main
struct Latchkey: AsyncParsableCommand {
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

    /// ArgumentParser's own main, except that a usage error of `session … --json` is
    /// answered with its JSON object too (a script reads standard output).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            SessionCommand.reportUsageErrorAsJSON(error, message: fullMessage(for: error), status: exitCode(for: error).rawValue)
            exit(withError: error)
        }
    }
}
