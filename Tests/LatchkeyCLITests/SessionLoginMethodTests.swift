import Foundation
import LatchkeyEmulator
import Testing

/// `latchkey session login` beyond the password: second factors and recovery codes from
/// standard input, a file descriptor or the terminal; Stytch one-time passcodes and magic
/// links; social.plus in secure mode, where every renewal needs an auth token.
@Suite struct SessionLoginMethodTests {
    @Test func aB2BSecondFactorFromAFileDescriptor() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        let acme = fixture.emulator.seed.stytch.organizations[0]
        let carol = acme.members[1]
        let arguments = ["login", "--organization-id", acme.organizationID, "--email", carol.email, "--password-stdin", "--code-fd", "3"]
        let code = try await fixture.emulator.control.stytchTOTPCode(memberID: carol.memberID)
        let result = try await fixture.runDetached(arguments, stdin: "carol-password-1\n", descriptor3: code + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Carol Danvers"), "\(result.stdout)")
    }

    @Test func aB2BRecoveryCode() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        let acme = fixture.emulator.seed.stytch.organizations[0]
        let carol = acme.members[1]
        let recovery = try #require(try await fixture.emulator.control.stytchRecoveryCodes(memberID: carol.memberID).first)
        let arguments = [
            "login", "--organization-id", acme.organizationID, "--email", carol.email, "--password-stdin", "--recovery-code",
            "--code-fd", "3",
        ]
        let result = try await fixture.runDetached(arguments, stdin: "carol-password-1\n", descriptor3: recovery)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func withoutATerminalTheErrorSaysWhereACodeCanComeFrom() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        let acme = fixture.emulator.seed.stytch.organizations[0]
        let arguments = ["login", "--organization-id", acme.organizationID, "--email", acme.members[1].email, "--password-stdin"]
        let result = try await fixture.runDetached(arguments, stdin: "carol-password-1\n")
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("--code-fd"), "\(result.stderr)")
        #expect(!result.stderr.contains("pass it on standard input"))
    }

    @Test func auth0MFAWithAOneTimeCodeAndWithARecoveryCode() async throws {
        let fixture = try await SessionCLIFixture.start(.auth0)
        defer { Task { await fixture.stop() } }
        let connection = fixture.emulator.seed.auth0.connection
        let arguments = ["login", "--username", "mfa@example.com", "--realm", connection, "--password-stdin", "--code-fd", "3"]
        let otp = try await fixture.runDetached(arguments, stdin: "mfa-password-1\n", descriptor3: "123456")
        #expect(otp.status == 0, "\(otp.stderr)")
        let wrong = try await fixture.runDetached(arguments, stdin: "mfa-password-1\n", descriptor3: "000000")
        #expect(wrong.status == 77, "a wrong code is refused: \(wrong.stderr)")
        let recovery = try await fixture.runDetached(
            arguments + ["--recovery-code", "--json"], stdin: "mfa-password-1\n", descriptor3: "RECOVERY-CODE-1")
        #expect(recovery.status == 0, "\(recovery.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(recovery.stdout.utf8)) as? [String: Any]
        #expect((object?["new_recovery_code"] as? String)?.isEmpty == false, "the new recovery code is shown once")
    }

    @Test func stytchOneTimePasscodeAndMagicLink() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let otp = try await fixture.emulator.control.issueStytchOTP(email: "alice@example.com")
        let login = try await fixture.run(["login", "--otp-method-id", otp.methodID, "--code-stdin"], stdin: otp.code + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        let link = try await fixture.emulator.control.issueStytchMagicLink(email: "alice@example.com")
        let magic = try await fixture.run(["login", "--magic-link-token-stdin", "--session-duration", "2h"], stdin: link + "\n")
        #expect(magic.status == 0, "\(magic.stderr)")
        let status = try await fixture.json(["status"])
        let expires = try #require((status.object["session_expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(expires.timeIntervalSince(fixture.emulator.control.now) > 3600, "the session lasts the asked two hours")
        #expect(try await fixture.run(["refresh", "--session-duration", "1m"]).status == 64, "below Stytch's 5 minutes")
        #expect(try await fixture.run(["refresh", "--session-duration", "1d"]).status == 0)
    }

    @Test func aSentMagicLinkLogsInFromAnotherProcessWithItsPKCEVerifier() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let send = try await fixture.json(["login", "--email", "alice@example.com", "--send-magic-link"])
        #expect(send.result.status == 0, "\(send.result.stderr)")
        #expect(send.object["sent"] as? Bool == true)
        #expect(try await fixture.run(["status"]).status == 1, "sending is not logging in")
        let token = try await fixture.emulator.control.sentStytchMagicLink(email: "alice@example.com")
        let login = try await fixture.run(["login", "--magic-link-token-stdin"], stdin: token + "\n")
        #expect(login.status == 0, "the verifier kept by the send completes the PKCE pair: \(login.stderr)")
        #expect(try await fixture.run(["login", "--send-magic-link"]).status == 64, "an email is needed")
        #expect(try await fixture.run(["login", "--email", "alice@example.com", "--send-magic-link", "--password-stdin"], stdin: "x\n").status == 64)
    }

    @Test func aSessionDurationIsRefusedWhereSessionsHaveNoLength() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let result = try await fixture.run(["login", "--user-id", "alice", "--session-duration", "1h"])
        #expect(result.status == 64, "\(result.stderr)")
    }

    @Test func socialPlusSecureModeRenewsWithATokenFromTheCommand() async throws {
        var seed = EmulatorSeed.standard
        seed.socialPlus.secureMode = true
        let fixture = try await SessionCLIFixture.start(.socialPlus, seed: seed)
        defer { Task { await fixture.stop() } }
        let base = try #require(fixture.emulator.baseURL(for: .socialPlus))
        // The app's backend hands out auth tokens; here the emulator's server-side endpoint.
        let command =
            "curl -sSf -X POST -H 'x-server-key: \(seed.socialPlus.serverKey)' -H 'content-type: application/json' "
            + "-d \"{\\\"userId\\\":\\\"$LATCHKEY_USER_ID\\\"}\" \(base.appendingPathComponent("api/v4/authentication/token").absoluteString)"
        let refused = try await fixture.run(["login", "--user-id", "alice"])
        #expect(refused.status == 77, "secure mode refuses a login without a token: \(refused.stderr)")
        let login = try await fixture.run(["login", "--user-id", "alice", "--auth-token-command", command])
        #expect(login.status == 0, "\(login.stderr)")
        let before = try await fixture.token()
        let refresh = try await fixture.run(["refresh", "--auth-token-command", command])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try await fixture.token() != before)
        let failing = try await fixture.run(["refresh", "--auth-token-command", "exit 3"])
        #expect(failing.status != 0)
        #expect(try await fixture.run(["status"]).status == 0, "a token source that fails keeps the session")
    }

    @Test func socialPlusAuthTokenFromStandardInput() async throws {
        var seed = EmulatorSeed.standard
        seed.socialPlus.secureMode = true
        let fixture = try await SessionCLIFixture.start(.socialPlus, seed: seed)
        defer { Task { await fixture.stop() } }
        let token = try await fixture.emulator.control.mintSocialPlusAuthToken(userID: "alice")
        let login = try await fixture.json(["login", "--user-id", "alice", "--auth-token-stdin"], stdin: token + "\n")
        #expect(login.result.status == 0, "\(login.result.stderr)")
        #expect(!login.result.stdout.contains(token) && !login.result.stderr.contains(token), "the auth token is never printed")
        let empty = try await fixture.run(["refresh", "--auth-token-command", "true"])
        #expect(empty.status == 75, "a command that prints nothing cannot renew; the session is kept: \(empty.stderr)")
        #expect(try await fixture.run(["status"]).status == 0)
    }

    @Test func conflictingOrMisplacedSecretSourcesAreUsageErrors() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let both = try await fixture.run(["login", "--email", "alice@example.com", "--password-stdin", "--code-stdin"], stdin: "x\n")
        #expect(both.status == 64, "standard input carries one secret")
        #expect(try await fixture.run(["login", "--email", "alice@example.com", "--code-fd", "1"]).status == 64)
        #expect(try await fixture.run(["token", "--auth-token-stdin", "--auth-token-command", "true"]).status == 64)
        let notSocialPlus = try await fixture.run(["token", "--auth-token-command", "true"])
        #expect(notSocialPlus.status == 64, "\(notSocialPlus.stderr)")
    }

    @Test func providerTextInJSONIsSafeOnATerminal() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let login = try await fixture.json(["login", "--user-id", "mallory", "--display-name", "Mallory\u{202E}\u{9B}31m"])
        #expect(login.result.status == 0, "\(login.result.stderr)")
        #expect(!login.result.stdout.contains("\u{202E}") && !login.result.stdout.contains("\u{9B}"), "\(login.result.stdout)")
        #expect((login.object["user"] as? [String: Any])?["name"] as? String == "Mallory\u{202E}\u{9B}31m", "escaped, not lost")
    }
}
