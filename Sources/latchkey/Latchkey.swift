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
}
