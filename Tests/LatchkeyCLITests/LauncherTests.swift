import Foundation
import Testing

/// `latchkey`, the launcher: `inspect` and `verify` become `latchkey-jwt`, `session token`
/// `latchkey-token` (TokenToolTests), every other command line `latchkey-full` (the same
/// process, arguments and streams).
@Suite struct LauncherTests {
    /// A directory holding a copy of the launcher and of the named tools beside it.
    static func launcher(with tools: [String]) throws -> (directory: URL, executable: String) {
        let launcher = try JWTCLIRunner().executablePath()
        let built = URL(fileURLWithPath: launcher).deletingLastPathComponent()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["latchkey"] + tools {
            try FileManager.default.copyItem(at: built.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        return (directory, directory.appendingPathComponent("latchkey").path)
    }

    @Test func inspectAndVerifyNeedOnlyTheJWTTool() throws {
        let (directory, front) = try Self.launcher(with: ["latchkey-jwt"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "front-secret-0123456789abcdef0123"
        let token = try JWTCLIRunner().run(["sign", "--secret", secret, "--alg", "HS256", "--claim", "sub=alice", "--exp", "5m"])
        #expect(token.status == 0, "\(token.stderr)")
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let inspect = try JWTCLIRunner().run(["inspect", "--json", jwt], executable: front)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("\"sub\":\"alice\""))
        let verify = try JWTCLIRunner().run(["verify", "--secret", secret, jwt], executable: front)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("valid"))
        let refused = try JWTCLIRunner().run(["verify", "--secret", secret + "x", jwt], executable: front)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: token refused"), "\(refused.stderr)")
        // A usage error of a JWT command has the tool's one spelling.
        let usage = try JWTCLIRunner().run(["verify", "--leeway", "-1", "--secret", secret, jwt], executable: front)
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("error: latchkey verify: "), "\(usage.stderr)")
    }

    @Test func aMissingToolIsAClearErrorNamingWhereItWasLookedFor() throws {
        let (directory, front) = try Self.launcher(with: ["latchkey-jwt"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let parent = directory.deletingLastPathComponent().path
        for arguments in [["--version"], ["session", "status"], [], ["--help"], ["help", "verify"]] {
            let result = try JWTCLIRunner().run(arguments, executable: front)
            #expect(result.status == 70, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr
                    == "error: latchkey: latchkey-full is not installed; looked for \(directory.path)/latchkey-full and \(parent)/libexec/latchkey/latchkey-full\n",
                "\(result.stderr)")
        }
        let (bare, alone) = try Self.launcher(with: [])
        defer { try? FileManager.default.removeItem(at: bare) }
        let token = try JWTCLIRunner().run(["session", "token"], executable: alone)
        #expect(token.status == 70)
        #expect(
            token.stderr.hasPrefix("error: latchkey: latchkey-token is not installed; looked for \(bare.path)/latchkey-token and "), "\(token.stderr)"
        )
        let verify = try JWTCLIRunner().run(["verify", "--secret", "s", "x.y.z"], executable: alone)
        #expect(verify.status == 70)
        #expect(
            verify.stderr.hasPrefix("error: latchkey: latchkey-jwt is not installed; looked for \(bare.path)/latchkey-jwt and "), "\(verify.stderr)")
    }

    @Test func theFullCLIRunsWithTheSameArgumentsAndStreams() throws {
        // Help and version come from the full CLI, which lists every command.
        let help = try JWTCLIRunner().run(["--help"])
        #expect(help.status == 0)
        for command in ["inspect", "verify", "sign", "keygen", "secrets", "session", "emulator"] {
            #expect(help.stdout.contains("  \(command)"), "\(command) in\n\(help.stdout)")
        }
        #expect(help.stdout.contains("USAGE: latchkey <subcommand>"), "argv[0] is kept: \(help.stdout)")
        // Standard input and the exit status pass through too: SecretsCLITests run `secrets
        // set` with a value on standard input through this same front.
        // A usage error of a full-CLI command keeps its spelling and status.
        let usage = try JWTCLIRunner().run(["keygen", "--alg", "nope"])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("error: latchkey keygen: "), "\(usage.stderr)")
    }
}
