import ArgumentParser
import LatchkeyCLIBase

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
            InspectCommand.self,
            VerifyCommand.self,
            Sign.self,
            Keygen.self,
            JWKSCommand.self,
            SecretsCommand.self,
            SessionCommand.self,
            DemoCommand.self,
            EmulatorCommand.self,
        ]
    )

    /// The tool's main (`ToolMain`), with a usage error of `session … --json` answered with
    /// its JSON object too (a script reads standard output).
    static func main() async {
        await ToolMain.run(Self.self) { error, message, status in
            SessionCommand.reportUsageErrorAsJSON(error, message: message, status: status)
        }
    }
}
