import Foundation
import LatchkeyEmulator
import Testing

/// `latchkey session login` without a password, through the real binary against the
/// emulator: Stytch one-time passcodes the command sends (and reads back in the same run,
/// or logs in with from another process), and Stytch B2B discovery with the choice of an
/// organization by option, on a terminal, or not at all in a script (the choices listed,
/// the sign-in kept for the next run).
@Suite struct SessionPasswordlessTests {
    // MARK: Stytch one-time passcodes

    @Test func anSMSCodeIsSentAndReadInTheSameRun() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let phone = "+15555550142"
        let result = try await runTypingCode(fixture, ["login", "--phone", phone, "--code-stdin", "--otp-expiration", "5m", "--json"]) {
            try? await fixture.emulator.control.sentStytchOTP(to: phone).code
        }
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["logged_in"] as? Bool == true, "\(result.stdout)")
        #expect(result.stderr.contains("Sent a one-time passcode by SMS to \(phone)"), "said on standard error with --json: \(result.stderr)")
        let sends = await fixture.emulator.control.requests(route: EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/sms/login_or_create"))
        #expect(sends.count == 1)
        #expect(try await fixture.run(["status"]).status == 0)
    }

    @Test func aSentCodeLogsInFromAnotherProcessWithItsMethodID() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let send = try await fixture.json(["login", "--email", "alice@example.com", "--send-otp"])
        #expect(send.result.status == 0, "\(send.result.stderr)")
        #expect(send.object["sent"] as? Bool == true)
        #expect(send.object["channel"] as? String == "email")
        let methodID = try #require(send.object["method_id"] as? String)
        #expect(try await fixture.run(["status"]).status == 1, "sending is not logging in")
        let delivered = try await fixture.emulator.control.sentStytchOTP(to: "alice@example.com", channel: "email")
        #expect(delivered.methodID == methodID)
        let wrong = try await fixture.run(["login", "--otp-method-id", methodID, "--code-stdin"], stdin: "000000\n")
        #expect(wrong.status == 77, "a wrong code is refused: \(wrong.stderr)")
        let login = try await fixture.json(["login", "--otp-method-id", methodID, "--code-stdin"], stdin: delivered.code + "\n")
        #expect(login.result.status == 0, "\(login.result.stderr)")
        #expect((login.object["user"] as? [String: Any])?["email"] as? String == "alice@example.com")

        let whatsapp = try await fixture.json(["login", "--phone", "+447700900123", "--whatsapp", "--send-otp"])
        #expect(whatsapp.result.status == 0, "\(whatsapp.result.stderr)")
        #expect(whatsapp.object["channel"] as? String == "whatsapp")
    }

    @Test func withoutAWayToReadTheCodeTheErrorGivesTheMethodIDOfTheSentOne() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let result = try await fixture.runDetached(["login", "--phone", "+15555550143", "--json"])
        #expect(result.status == 66, "no terminal, no --code-stdin: \(result.stderr)")
        let error = try #require((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any])
        let methodID = try #require(error["method_id"] as? String)
        #expect((error["hint"] as? String)?.contains("--otp-method-id") == true)
        let code = try await fixture.emulator.control.sentStytchOTP(to: "+15555550143").code
        let login = try await fixture.run(["login", "--otp-method-id", methodID, "--code-stdin"], stdin: code + "\n")
        #expect(login.status == 0, "the sent code still logs in: \(login.stderr)")
    }

    @Test func passcodeOptionsThatCannotWorkAreUsageErrors() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let cases: [[String]] = [
            ["login", "--whatsapp", "--send-otp", "--email", "alice@example.com"],
            ["login", "--send-otp"],
            ["login", "--phone", "+15555550142", "--email", "alice@example.com", "--send-otp"],
            ["login", "--phone", "+15555550142", "--send-otp", "--code-stdin"],
            ["login", "--phone", "+15555550142", "--otp-expiration", "11m"],
            ["login", "--phone", "+15555550142", "--otp-expiration", "90s"],
            ["login", "--email", "alice@example.com", "--otp-expiration", "5m"],
            ["login", "--phone", "+15555550142", "--password-stdin"],
            ["login", "--discovery", "--organization", "acme"],
        ]
        for arguments in cases {
            let result = try await fixture.json(arguments)
            #expect(result.result.status == 64, "\(arguments): \(result.result.stderr)")
            #expect((result.object["error"] as? [String: Any])?["code"] as? String == "usage")
        }
        // A number Stytch refuses is the user's mistake too, said with the provider's code.
        let malformed = try await fixture.json(["login", "--phone", "5555550142", "--send-otp"])
        #expect(malformed.result.status == 64, "\(malformed.result.stderr)")
        #expect((malformed.object["error"] as? [String: Any])?["provider_code"] as? String == "invalid_phone_number")
        #expect(await fixture.emulator.control.requests(route: EmulatorRoute(.stytch, "POST", "/sdk/v1/otps/email/login_or_create")).isEmpty)
    }

    // MARK: Stytch B2B discovery

    @Test func discoveryWithTheOrganizationNamedByItsSlug() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        let send = try await fixture.json(["login", "--discovery", "--email", "carol@acme.example", "--send-magic-link"])
        #expect(send.result.status == 0, "\(send.result.stderr)")
        #expect(send.object["discovery"] as? Bool == true)
        let token = try await fixture.emulator.control.sentStytchDiscoveryMagicLink(email: "carol@acme.example")
        let login = try await fixture.json(["login", "--discovery", "--magic-link-token-stdin", "--organization", "globex"], stdin: token + "\n")
        #expect(login.result.status == 0, "the verifier kept by the send completes the PKCE pair: \(login.result.stderr)")
        #expect((login.object["organization"] as? [String: Any])?["slug"] as? String == "globex")
        #expect(!login.result.stdout.contains(token) && !login.result.stderr.contains(token))
        let status = try await fixture.run(["status"])
        #expect(status.stdout.contains("Carol Danvers"), "\(status.stdout)")
        let reused = try await fixture.run(["login", "--discovery", "--organization", "globex"])
        #expect(reused.status == 64, "the kept sign-in was used up: \(reused.stderr)")
    }

    @Test func aScriptWithoutAChoiceGetsTheChoicesAndTheNextRunChooses() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.run(["login", "--discovery", "--email", "carol@acme.example", "--send-magic-link"]).status == 0)
        let token = try await fixture.emulator.control.sentStytchDiscoveryMagicLink(email: "carol@acme.example")
        // No --organization, no terminal: a usage error listing the choices, never a prompt.
        let unchosen = try await fixture.runDetached(["login", "--discovery", "--magic-link-token-stdin", "--json"], stdin: token + "\n")
        #expect(unchosen.status == 64, "\(unchosen.stderr)")
        let error = try #require((try JSONSerialization.jsonObject(with: Data(unchosen.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any])
        let choices = try #require(error["organizations"] as? [[String: Any]])
        #expect(choices.compactMap { $0["slug"] as? String } == ["acme", "globex"])
        #expect(choices.compactMap { $0["second_factor_required"] as? Bool } == [true, false])
        #expect(!unchosen.stdout.contains(token))

        let list = try await fixture.json(["login", "--discovery", "--list-organizations"])
        #expect(list.result.status == 0, "\(list.result.stderr)")
        #expect((list.object["organizations"] as? [[String: Any]])?.count == 2)
        let text = try await fixture.run(["login", "--discovery", "--list-organizations"])
        #expect(text.stdout.contains("Acme (acme, organization-test-") && text.stdout.contains("a second factor follows"), "\(text.stdout)")
        let unknown = try await fixture.json(["login", "--discovery", "--organization", "initech"])
        #expect(unknown.result.status == 64)
        #expect(((unknown.object["error"] as? [String: Any])?["message"] as? String)?.contains("acme, globex") == true)

        // Acme needs a second factor: the existing code paths finish it.
        let acme = fixture.emulator.seed.stytch.organizations[0]
        let code = try await fixture.emulator.control.stytchTOTPCode(memberID: acme.members[1].memberID)
        let login = try await fixture.runDetached(
            ["login", "--discovery", "--organization", "acme", "--code-fd", "3", "--json"], descriptor3: code + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try await fixture.run(["status"]).stdout.contains("Carol Danvers"))
    }

    @Test func onATerminalTheOrganizationIsChosenFromANumberedList() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.run(["login", "--discovery", "--email", "carol@acme.example", "--send-magic-link"]).status == 0)
        let token = try await fixture.emulator.control.sentStytchDiscoveryMagicLink(email: "carol@acme.example")
        #expect(try await fixture.runDetached(["login", "--discovery", "--magic-link-token-stdin"], stdin: token + "\n").status == 64)
        // A first answer that is not a choice is asked again.
        let terminal = try await runOnTerminal(fixture, ["login", "--discovery"], typing: "7\n2\n")
        #expect(terminal.status == 0, "\(terminal.output)")
        #expect(terminal.output.contains("1) Acme (acme,") && terminal.output.contains("2) Globex (globex,"), "\(terminal.output)")
        #expect(terminal.output.contains("Choose 1-2"))
        #expect(terminal.output.contains("Not one of the choices"))
        let status = try await fixture.json(["status"])
        #expect(status.result.stdout.contains("globex") || status.result.stdout.contains("Globex"), "\(status.result.stdout)")
    }

    @Test func discoveryIsForStytchB2BOnlyAndPasscodesForStytchOnly() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.run(["login", "--phone", "+15555550142", "--send-otp"]).status == 64)
        let consumer = try await SessionCLIFixture.start(.stytch)
        defer { Task { await consumer.stop() } }
        #expect(try await consumer.run(["login", "--discovery", "--email", "alice@example.com", "--send-magic-link"]).status == 64)
    }

    // MARK: Help

    @Test func theBrowserLoginHelpSaysTheRedirectMustBeRegistered() async throws {
        let help = try await runOffThePool(["session", "login", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("settings.redirect_uri"), "\(help.stdout)")
        #expect(text.contains("Allowed Callback URLs"))
        #expect(text.contains("port included"))
        #expect(text.contains("Redirect URLs"))
    }

    // MARK: Runners

    /// Runs `latchkey session <arguments>` without a controlling terminal, its standard
    /// input a pipe: once `code` finds the code the command sent, it is typed there.
    private func runTypingCode(
        _ fixture: SessionCLIFixture, _ arguments: [String],
        code: @escaping @Sendable () async -> String?
    ) async throws -> JWTCLIRunner.Result {
        let latchkey = try JWTCLIRunner().executablePath()
        let output = fixture.directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errors = fixture.directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let input = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", latchkey, "session"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(fixture.environment) { $1 }
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // Generous: the send happens once the process started, on a loaded machine.
        let deadline = Date().addingTimeInterval(90)
        var typed = false
        while Date() < deadline, process.isRunning {
            if let code = await code() {
                input.fileHandleForWriting.write(Data((code + "\n").utf8))
                typed = true
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try input.fileHandleForWriting.close()
        while process.isRunning, Date() < deadline.addingTimeInterval(30) { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        #expect(typed, "the command sent a code")
        return JWTCLIRunner.Result(
            status: process.terminationStatus, stdout: try String(contentsOf: output, encoding: .utf8),
            stderr: try String(contentsOf: errors, encoding: .utf8))
    }

    /// Runs `latchkey session <arguments>` on a pseudo-terminal (script(1)) where `typing`
    /// is typed, and returns what the terminal showed.
    private func runOnTerminal(_ fixture: SessionCLIFixture, _ arguments: [String], typing: String) async throws -> (output: String, status: Int32) {
        let latchkey = try JWTCLIRunner().executablePath()
        let typescript = fixture.directory.appendingPathComponent("typescript-\(UUID().uuidString)")
        let keys = fixture.directory.appendingPathComponent("keys-\(UUID().uuidString)")
        try Data(typing.utf8).write(to: keys)
        let quoted = ([latchkey, "session"] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", quoted, typescript.path]
        var environment = ProcessInfo.processInfo.environment.merging(fixture.environment) { $1 }
        environment["TERM"] = "xterm"
        environment["SHELL"] = "/bin/sh"
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: keys)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        return (String(decoding: (try? Data(contentsOf: typescript)) ?? Data(), as: UTF8.self), process.terminationStatus)
    }
}
