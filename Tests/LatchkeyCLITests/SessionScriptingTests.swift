import Foundation
import LatchkeyEmulator
import Testing

/// `latchkey session` for scripts: exit statuses with meanings, one JSON object per run,
/// why a session ended, and names a person reads.
@Suite struct SessionScriptingTests {
    // MARK: Exit statuses

    @Test func eachExitStatusMeansOneThing() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.run(["status"]).status == 1, "nobody logged in")
        #expect(try await fixture.run(["token"]).status == 1, "nobody logged in")
        #expect(try await fixture.run(["token", "--min-ttl", "soon"]).status == 64, "usage")
        #expect(try await fixture.run(["status", "--bogus"]).status == 64, "usage")
        let empty = try await fixture.run(["login", "--email", "alice@example.com", "--password-stdin"], stdin: "")
        #expect(empty.status == 66, "no password on standard input: \(empty.stderr)")
        let wrong = fixture.passwordLogin(wrong: true)
        #expect(try await fixture.run(wrong.arguments, stdin: wrong.stdin).status == 77, "refused credentials")
        #expect(try await fixture.run(["status", "--config", "/nonexistent/latchkey.json"]).status == 78, "configuration")

        try await fixture.logIn()
        #expect(try await fixture.run(["status"]).status == 0)
        await fixture.emulator.control.inject(
            EmulatorFault(
                route: EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/authenticate"),
                kind: .status(503), trigger: .next(20)))
        let unreachable = try await fixture.run(["refresh"])
        #expect(unreachable.status == 75, "retry later: \(unreachable.stderr)")
        await fixture.emulator.control.clearFaults()
        await fixture.emulator.control.inject(
            EmulatorFault(
                route: EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/authenticate"),
                kind: .status(429, error: "too_many_requests"), trigger: .next(20)))
        let limited = try await fixture.json(["refresh"])
        #expect(limited.result.status == 75, "rate limited: retry later")
        #expect((limited.object["error"] as? [String: Any])?["code"] as? String == "rateLimited")
        await fixture.emulator.control.clearFaults()
        #expect(try await fixture.run(["status"]).status == 0, "the session survived both")
    }

    @Test func anUnusableStoreIsAnIOError() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        let blocker = fixture.directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let result = try await fixture.run(["status"], environment: ["XDG_DATA_HOME": blocker.appendingPathComponent("data").path])
        #expect(result.status == 74, "\(result.stderr)")
    }

    @Test func theHelpDocumentsTheExitStatuses() async throws {
        let help = try await runOffThePool(["session", "--help"])
        for line in [
            "64  usage error", "75  the provider is unreachable, failing or rate limiting: retry later", "77  the provider refused",
            "78  configuration error",
        ] {
            #expect(help.stdout.contains(line), "\(line)")
        }
        let login = try await runOffThePool(["session", "login", "--help"])
        #expect(login.stdout.contains("Exit status:"))
        // The discussion's sentences have single spaces (the exit-status table is a table).
        let prose = login.stdout.components(separatedBy: "\n").filter { line in
            !line.trimmingCharacters(in: .whitespaces).first.map(\.isNumber).boolValue && !line.hasPrefix("  -") && !line.contains("  --")
        }
        for line in prose {
            #expect(line.trimmingCharacters(in: .whitespaces).range(of: #"\S {2,}\S"#, options: .regularExpression) == nil, "\(line)")
        }
    }

    // MARK: JSON

    @Test func everySubcommandPrintsOneJSONObject() async throws {
        let fixture = try await SessionCLIFixture.start(.auth0)
        defer { Task { await fixture.stop() } }
        let notLoggedIn = try await fixture.json(["token"])
        #expect(notLoggedIn.result.status == 1)
        #expect(notLoggedIn.object["exit_status"] as? Int == 1)
        #expect((notLoggedIn.object["error"] as? [String: Any])?["code"] as? String == "notLoggedIn")

        let login = fixture.passwordLogin()
        let loggedIn = try await fixture.json(login.arguments, stdin: login.stdin)
        #expect(loggedIn.result.status == 0, "\(loggedIn.result.stdout)")
        #expect(loggedIn.object["logged_in"] as? Bool == true)
        #expect(loggedIn.object["exit_status"] as? Int == 0)
        #expect((loggedIn.object["user"] as? [String: Any])?["id"] as? String == "auth0|alice")

        let status = try await fixture.json(["status"])
        #expect(status.object["logged_in"] as? Bool == true)
        #expect(status.object["access_token_expires_at"] is String, "Auth0 gives the access token's lifetime")
        #expect(status.object["end_reason"] is NSNull)

        let token = try await fixture.json(["token"])
        #expect((token.object["access_token"] as? String)?.isEmpty == false)
        #expect(token.object["expires_at"] is String)

        let refresh = try await fixture.json(["refresh"])
        #expect(refresh.object["renewed"] as? Bool == true)
        #expect(refresh.object["access_token_expires_at"] is String)

        let usage = try await fixture.json(["token", "--min-ttl", "soon"])
        #expect(usage.result.status == 64)
        #expect((usage.object["error"] as? [String: Any])?["code"] as? String == "usage")
        let parse = try await fixture.json(["status", "--bogus"])
        #expect(parse.result.status == 64)
        #expect(parse.object["exit_status"] as? Int == 64)

        let logout = try await fixture.json(["logout", "--secure"])
        #expect(logout.object["logged_out"] as? Bool == true)
        #expect(logout.result.stdout.split(separator: "\n").count == 1, "one object, one line")
    }

    // MARK: Why a session ended

    @Test func statusSaysWhyTheProviderEndedTheSessionUntilTheNextLogin() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let token = try await fixture.token()
        let userID = fixture.emulator.seed.stytch.users[0].userID
        #expect(try await fixture.emulator.control.revokeSessions(of: userID, provider: .stytch) == 1)

        let first = try await fixture.run(["status"])
        #expect(first.status == 1)
        #expect(first.stdout.contains("session ended"), "\(first.stdout)")
        #expect(first.stdout.contains("session_not_found") && first.stdout.contains("sessions/authenticate"), "\(first.stdout)")

        // A later process says it too, from the note in the store.
        let later = try await fixture.json(["status"])
        #expect(later.result.status == 1)
        let reason = try #require(later.object["end_reason"] as? [String: Any], "\(later.result.stdout)")
        #expect(reason["code"] as? String == "unrecoverable")
        // Stytch's answer for a session its project ended (a backend revoke): 404.
        #expect(reason["provider_code"] as? String == "session_not_found")
        #expect(reason["endpoint"] as? String == "sessions/authenticate")
        #expect(reason["http_status"] as? Int == 404)
        #expect((reason["message"] as? String)?.isEmpty == false)
        #expect(!later.result.stdout.contains(token), "no secret in the note")

        try await fixture.logIn()
        let after = try await fixture.json(["status"])
        #expect(after.object["end_reason"] is NSNull, "a login forgets the note")
    }

    @Test func aBanIsNamed() async throws {
        let fixture = try await SessionCLIFixture.start(.socialPlus)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        try await fixture.emulator.control.banUser("alice", provider: .socialPlus)
        let status = try await fixture.json(["status"])
        #expect(status.result.status == 1)
        let reason = try #require(status.object["end_reason"] as? [String: Any], "\(status.result.stdout)")
        #expect(reason["termination_reason"] as? String == "globalBan")
        #expect(reason["endpoint"] as? String == "GET /api/v3/users/{userId}")
        let text = try await fixture.run(["status"])
        #expect(text.stdout.contains("globalBan"), "\(text.stdout)")
    }

    @Test func aRefusedRenewalNamesTheTokenEndpoint() async throws {
        let fixture = try await SessionCLIFixture.start(.auth0)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        #expect(try await fixture.emulator.control.revokeSessions(of: "auth0|alice", provider: .auth0) > 0)
        let refresh = try await fixture.json(["refresh"])
        #expect(refresh.result.status == 1, "the session ended: \(refresh.result.stdout)")
        #expect((refresh.object["error"] as? [String: Any])?["provider_code"] as? String == "invalid_grant")
        let status = try await fixture.json(["status"])
        let reason = try #require(status.object["end_reason"] as? [String: Any], "\(status.result.stdout)")
        #expect(reason["endpoint"] as? String == "POST /oauth/token")
        #expect(reason["provider_code"] as? String == "invalid_grant")
    }

    // MARK: Names

    @Test func aB2BLoginNamesTheMemberAndTheOrganization() async throws {
        let fixture = try await SessionCLIFixture.start(.stytchB2B)
        defer { Task { await fixture.stop() } }
        let login = fixture.passwordLogin()
        let result = try await fixture.run(login.arguments, stdin: login.stdin)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Logged in as Bob Builder <bob@acme.example> in Acme"), "\(result.stdout)")
        let status = try await fixture.json(["status"])
        let user = try #require(status.object["user"] as? [String: Any])
        #expect(user["id"] as? String == fixture.emulator.seed.stytch.organizations[0].members[0].memberID)
        #expect(user["email"] as? String == "bob@acme.example")
        #expect(status.object["session_expires_at"] is String)
        let text = try await fixture.run(["status"])
        #expect(text.stdout.contains("user:            Bob Builder <bob@acme.example> in Acme"), "\(text.stdout)")
    }

    @Test func aConsumerLoginNamesThePerson() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        let login = fixture.passwordLogin()
        let result = try await fixture.run(login.arguments, stdin: login.stdin)
        #expect(result.stdout.contains("alice@example.com"), "\(result.stdout)")
    }
}

extension Optional where Wrapped == Bool {
    var boolValue: Bool { self ?? false }
}
