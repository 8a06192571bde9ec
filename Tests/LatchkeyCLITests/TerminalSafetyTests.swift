import Foundation
import LatchkeyJWT
import Testing

/// What reaches a terminal (escaped, `sign --exp` included), and how much standard input
/// is read.
@Suite struct TerminalSafetyTests {
    private let cli = JWTCLIRunner()
    private static let secret = "correct horse battery staple, long enough for HS256"
    /// ESC sequences (clear screen, set title ending in BEL), DEL and a C1 CSI.
    private static let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}\u{7F}\u{9B}31m"

    private static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    /// Whether `text` holds any character the terminal would act on.
    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    @Test func verifyAndInspectEscapeTokenStrings() throws {
        let signed = try cli.run([
            "sign", "--alg", "HS256", "--secret", Self.secret, "--kid", "k" + Self.hostile,
            "--sub", "u" + Self.hostile, "--exp", "5m",
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let verified = try cli.run(["verify", "--secret", Self.secret, token])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(!Self.hasControl(verified.stdout), "\(verified.stdout.debugDescription)")
        #expect(verified.stdout.contains(#"kid k\x1b[2J\x1b]0;pwned\x07\x7f\x9b31m"#), "\(verified.stdout)")
        #expect(verified.stdout.contains(#"sub u\x1b[2J"#))

        let inspected = try cli.run(["inspect", token])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(!Self.hasControl(inspected.stdout), "\(inspected.stdout.debugDescription)")
        #expect(inspected.stdout.contains(#"\x9b31m"#))

        // JSON output stays JSON: C0 already escaped by JSON, the rest is data.
        let json = try cli.run(["inspect", "--json", token])
        #expect(try JWTCLIRunner.jsonObject(json.stdout)["header"] as? [String: Any] != nil)
    }

    @Test func bidirectionalControlsAreShownNotObeyed() throws {
        // U+202E reverses what follows on the line; U+2066 and U+200F are its quieter kin.
        let signed = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--sub", "user\u{202E}gnp.exe\u{2066}x\u{200F}", "--exp", "5m"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["inspect", token], ["verify", "--secret", Self.secret, token]] {
            let result = try cli.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.unicodeScalars.contains { [0x202E, 0x2066, 0x200F].contains($0.value) }, "\(result.stdout.debugDescription)")
            #expect(result.stdout.contains(#"user\u{202E}gnp.exe\u{2066}x\u{200F}"#), "\(result.stdout)")
        }
    }

    @Test func hostileAlgAndPayloadTextAreEscapedInReportsAndErrors() throws {
        let header = Self.b64(#"{"alg":"X\u001b[31mY\u009b"}"#)
        let textPayload = Self.b64("plain \u{1B}[2J text\u{9B}")
        let token = header + "." + textPayload + ".AAAA"
        let inspected = try cli.run(["inspect", token])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(!Self.hasControl(inspected.stdout), "\(inspected.stdout.debugDescription)")
        #expect(inspected.stdout.contains(#"Signature"#))
        #expect(inspected.stdout.contains(#"X\x1b[31mY\x9b"#), "\(inspected.stdout)")

        let refused = try cli.run(["verify", "--secret", Self.secret, token])
        #expect(refused.status == 1)
        #expect(!refused.stderr.isEmpty)
        #expect(!Self.hasControl(refused.stderr), "\(refused.stderr.debugDescription)")

        let malformedJSON = Self.b64(#"{"alg":"HS256"}"#) + "." + Self.b64("{\"a\":\"\u{1B}[2J") + ".AAAA"
        let report = try cli.run(["inspect", malformedJSON])
        #expect(!Self.hasControl(report.stdout + report.stderr), "\((report.stdout + report.stderr).debugDescription)")
    }

    @Test func jwksEscapesKeyMembers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("jwks.json").path
        let secret = Base64URL.encode(Array(repeating: 7, count: 32))
        let jwks =
            #"{"keys":[{"kty":"oct","k":"\#(secret)","kid":"a\u001b[2Jb\u009b","use":"sig\u001b]0;t\u0007"},"#
            + #"{"kty":"zz\u001b[5m","kid":"bad\u001b[31m"}]}"#
        try Data(jwks.utf8).write(to: URL(fileURLWithPath: path))
        let run = try cli.run(["jwks", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!Self.hasControl(run.stdout + run.stderr), "\((run.stdout + run.stderr).debugDescription)")
        #expect(run.stdout.contains(#"a\x1b[2Jb\x9b"#), "\(run.stdout)")
    }

    @Test func standardInputIsNotReadPastTheTokenLimit() throws {
        // An endless stream: reading it whole would never end.
        let executable = try #require(JWTCLIRunner.executable)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-stdin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["inspect", "verify --secret x"] {
            let errorPath = directory.appendingPathComponent("stderr").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA | \"$0\" \(command) - 2>\"$1\"", executable, errorPath]
            process.standardOutput = FileHandle.nullDevice
            let started = Date()
            try process.run()
            while process.isRunning {
                if Date().timeIntervalSince(started) > 30 {
                    process.terminate()
                    Issue.record("latchkey \(command) kept reading an endless standard input")
                    return
                }
                usleep(5_000)
            }
            #expect(process.terminationStatus == 1)
            let stderr = try String(contentsOfFile: errorPath, encoding: .utf8)
            #expect(stderr.contains("standard input holds more than 66560 bytes"), "\(stderr)")
            #expect(stderr.contains("64 KiB"))
        }
    }

    @Test func aTokenJustUnderTheLimitIsStillRead() throws {
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "5m"]).stdout
        // Padding within the allowance is trimmed, not refused.
        let run = try cli.run(["verify", "--secret", Self.secret], stdin: "Bearer " + token + String(repeating: " ", count: 900))
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test(arguments: ["1e19", "99999999999999", "1e300", "inf", "nan", "1000000000000"])
    func signRefusesAHugeBareExp(_ exp: String) throws {
        let run = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", exp])
        #expect(run.status == 64, "\(exp): \(run.stdout)")
    }

    @Test func signTakesAReasonableExpWithAUnit() throws {
        // A bare number is refused (seconds or days?); with a unit it is taken.
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "3600"]).status == 64)
        let run = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "3600s"])
        #expect(run.status == 0, "\(run.stderr)")
    }
}
