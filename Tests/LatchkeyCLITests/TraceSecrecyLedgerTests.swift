import Foundation
import LatchkeyEmulator
import Synchronization
import Testing

/// Every secret the emulated provider received or issued, read from the exchanges
/// themselves (not from the recorder's list of names): credential headers, cookies,
/// every string under a field whose name says secret, every JWT, and what the test fed in.
final class SecretLedger: Sendable {
    private let secrets = Mutex<Set<String>>([])

    /// Field-name fragments that mark a secret (lower-cased, `_` and `-` removed).
    private static let secretNames = [
        "token", "password", "secret", "jwt", "verifier", "otp", "passcode", "recovery", "backup",
        "apikey", "assertion", "credential",
    ]
    private static let exactNames: Set<String> = ["code", "devicecode", "usercode", "key", "ticket", "cookie"]
    /// Fields that say what kind of secret, never the secret.
    private static let descriptive = ["type", "id", "expires", "at", "method", "challenge", "in"]

    var all: Set<String> { secrets.withLock { $0 } }

    func add(_ value: String) {
        let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard value.utf8.count >= 6, value != "Bearer" else { return }
        secrets.withLock { _ = $0.insert(value) }
    }

    func observe(_ exchange: EmulatorExchange) {
        for (name, value) in exchange.requestHeaders where ["authorization", "x-api-key", "cookie", "dpop", "x-server-key"].contains(name) {
            add(value)
            value.split(separator: " ").dropFirst().forEach { add(String($0)) }
        }
        for field in exchange.responseHeaders where field.name.lowercased() == "set-cookie" {
            for pair in field.value.split(separator: ";") { add(String(pair.split(separator: "=", maxSplits: 1).last ?? "")) }
        }
        for (name, value) in exchange.query where Self.isSecret(name) { add(value) }
        for body in [exchange.requestBody, exchange.responseBody] {
            let text = String(decoding: body, as: UTF8.self)
            for match in text.matches(of: #/eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*/#) { add(String(match.output)) }
            if let json = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) {
                collect(json, secret: false)
            } else {
                for pair in text.split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                    if parts.count == 2, Self.isSecret(parts[0]) { add(parts[1]) }
                }
            }
        }
    }

    private func collect(_ value: Any, secret: Bool) {
        switch value {
        case let text as String: if secret { add(text) }
        case let array as [Any]: for item in array { collect(item, secret: secret) }
        case let object as [String: Any]: for (name, item) in object { collect(item, secret: secret || Self.isSecret(name)) }
        default: break
        }
    }

    private static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        let folded = lower.filter { $0 != "_" && $0 != "-" }
        let words = lower.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        if let last = words.last, words.count > 1, descriptive.contains(last) { return false }
        if folded.hasSuffix("id") || folded.hasSuffix("type") { return false }
        return exactNames.contains(folded) || secretNames.contains { folded.contains($0) }
    }
}

/// `--trace FILE` and `$LATCHKEY_TRACE`: the real binary logs in with every method it
/// has against the emulator, and no secret the emulator received or issued reaches the
/// HAR file, which parses as HAR 1.2 with entries.
@Suite struct TraceSecrecyLedgerTests {
    struct Run {
        var fixture: SessionCLIFixture
        var ledger: SecretLedger
        var traces: [URL] = []
        /// The traces of commands that must talk to the provider.
        var talking: Set<URL> = []

        /// `latchkey session <arguments> --trace <new file>`; the run must succeed.
        mutating func traced(_ arguments: [String], stdin: String = "", byEnvironment: Bool = false, offline: Bool = false) async throws {
            let trace = fixture.directory.appendingPathComponent("trace-\(traces.count).har")
            traces.append(trace)
            if !offline { talking.insert(trace) }
            let result =
                byEnvironment
                ? try await fixture.run(arguments, stdin: stdin, environment: ["LATCHKEY_TRACE": trace.path])
                : try await fixture.run(arguments + ["--trace", trace.path], stdin: stdin)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }

        /// Checks every trace against everything the ledger holds now.
        func check() throws {
            let secrets = ledger.all
            #expect(secrets.count >= 3, "the ledger saw the exchanges: \(secrets.count)")
            for trace in traces {
                let text = try String(contentsOf: trace, encoding: .utf8)
                for secret in secrets where text.contains(secret) {
                    Issue.record("\(trace.lastPathComponent) holds a secret of \(secret.utf8.count) bytes starting \(secret.prefix(4))…")
                }
                let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                let log = try #require(object?["log"] as? [String: Any])
                #expect(log["version"] as? String == "1.2")
                let entries = try #require(log["entries"] as? [Any])
                #expect(!talking.contains(trace) || !entries.isEmpty, "\(trace.lastPathComponent) has entries")
                let mode = try FileManager.default.attributesOfItem(atPath: trace.path)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
        }
    }

    private func start(_ provider: SessionCLIFixture.Provider, seed: EmulatorSeed = .standard) async throws -> Run {
        let ledger = SecretLedger()
        let fixture = try await SessionCLIFixture.start(provider, seed: seed, exchangeObserver: { ledger.observe($0) })
        return Run(fixture: fixture, ledger: ledger)
    }

    /// Password login, then every other session command, each with its own trace.
    private func passwordAndTheRest(_ run: inout Run) async throws {
        let login = run.fixture.passwordLogin()
        if !login.stdin.isEmpty { run.ledger.add(login.stdin) }
        try await run.traced(login.arguments, stdin: login.stdin)
        try await run.traced(["status"], byEnvironment: true)
        // A stored token that is still fresh is printed without asking; logging out may only forget.
        try await run.traced(["token"], offline: true)
        try await run.traced(["refresh"])
        try await run.traced(["logout"], offline: true)
    }

    @Test func stytch() async throws {
        var run = try await start(.stytch)
        let fixture = run.fixture
        defer { Task { await fixture.stop() } }
        try await passwordAndTheRest(&run)
        let otp = try await run.fixture.emulator.control.issueStytchOTP(email: "alice@example.com")
        run.ledger.add(otp.code)
        try await run.traced(["login", "--otp-method-id", otp.methodID, "--code-stdin"], stdin: otp.code + "\n")
        let link = try await run.fixture.emulator.control.issueStytchMagicLink(email: "alice@example.com")
        run.ledger.add(link)
        try await run.traced(["login", "--magic-link-token-stdin"], stdin: link + "\n")
        // A code the command sends, entered in another process.
        try await run.traced(["login", "--phone", "+15555550142", "--send-otp"])
        let sent = try await run.fixture.emulator.control.sentStytchOTP(to: "+15555550142")
        run.ledger.add(sent.code)
        try await run.traced(["login", "--otp-method-id", sent.methodID, "--code-stdin"], stdin: sent.code + "\n")
        try run.check()
    }

    @Test func stytchB2B() async throws {
        var run = try await start(.stytchB2B)
        let fixture = run.fixture
        defer { Task { await fixture.stop() } }
        try await passwordAndTheRest(&run)
        let acme = run.fixture.emulator.seed.stytch.organizations[0]
        let carol = acme.members[1]
        let totp = try await run.fixture.emulator.control.stytchTOTPCode(memberID: carol.memberID)
        let recovery = try #require(try await run.fixture.emulator.control.stytchRecoveryCodes(memberID: carol.memberID).first)
        for secret in ["carol-password-1", totp, recovery] { run.ledger.add(secret) }
        // The password on standard input, the second factor (a recovery code, then a TOTP code) on descriptor 3.
        let password = ["login", "--organization-id", acme.organizationID, "--email", carol.email, "--password-stdin"]
        try await run.traced(
            password + ["--recovery-code", "--code-fd", "3"], stdin: "carol-password-1\n",
            codeFile: recovery)
        // A fresh TOTP code: the first may have aged out on a slow machine.
        let fresh = try await run.fixture.emulator.control.stytchTOTPCode(memberID: carol.memberID)
        run.ledger.add(fresh)
        try await run.traced(password + ["--code-fd", "3"], stdin: "carol-password-1\n", codeFile: fresh)
        // Discovery: the link's token and the intermediate session never reach the trace.
        try await run.traced(["login", "--discovery", "--email", carol.email, "--send-magic-link"])
        let discovery = try await run.fixture.emulator.control.sentStytchDiscoveryMagicLink(email: carol.email)
        run.ledger.add(discovery)
        try await run.traced(["login", "--discovery", "--magic-link-token-stdin", "--organization", "globex"], stdin: discovery + "\n")
        try run.check()
    }

    @Test func auth0() async throws {
        var run = try await start(.auth0)
        let fixture = run.fixture
        defer { Task { await fixture.stop() } }
        try await passwordAndTheRest(&run)
        run.ledger.add("mfa-password-1")
        run.ledger.add("RECOVERY-CODE-1")
        let mfa = [
            "login", "--username", "mfa@example.com", "--realm", run.fixture.emulator.seed.auth0.connection, "--password-stdin",
            "--code-fd", "3",
        ]
        try await run.traced(mfa, stdin: "mfa-password-1\n", codeFile: "123456")
        try await run.traced(mfa + ["--recovery-code"], stdin: "mfa-password-1\n", codeFile: "RECOVERY-CODE-1")
        // The device code flow (the emulator approves it after a few polls).
        try await run.traced(["login"])
        try run.check()
    }

    @Test func socialPlus() async throws {
        var seed = EmulatorSeed.standard
        seed.socialPlus.secureMode = true
        var run = try await start(.socialPlus, seed: seed)
        let fixture = run.fixture
        defer { Task { await fixture.stop() } }
        run.ledger.add(seed.socialPlus.apiKey)
        let token = try await run.fixture.emulator.control.mintSocialPlusAuthToken(userID: "alice")
        run.ledger.add(token)
        try await run.traced(["login", "--user-id", "alice", "--display-name", "Alice", "--auth-token-stdin"], stdin: token + "\n")
        try await run.traced(["status"])
        try await run.traced(["token"], byEnvironment: true, offline: true)
        let renewal = try await run.fixture.emulator.control.mintSocialPlusAuthToken(userID: "alice")
        run.ledger.add(renewal)
        try await run.traced(["refresh", "--auth-token-stdin"], stdin: renewal + "\n")
        try await run.traced(["logout"], offline: true)
        try run.check()
    }

    @Test func aTraceFileThatCannotBeWrittenFailsBeforeAnyRequest() async throws {
        let run = try await start(.socialPlus)
        let fixture = run.fixture
        defer { Task { await fixture.stop() } }
        let result = try await run.fixture.run(["login", "--user-id", "alice", "--trace", "/nonexistent-directory/trace.har"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("trace"), "\(result.stderr)")
        #expect(await run.fixture.emulator.control.requests().isEmpty, "nothing was sent")
    }
}

extension TraceSecrecyLedgerTests.Run {
    /// A traced run with `code` on file descriptor 3 (as `3<file`), without a terminal.
    mutating func traced(_ arguments: [String], stdin: String, codeFile code: String) async throws {
        let trace = fixture.directory.appendingPathComponent("trace-\(traces.count).har")
        traces.append(trace)
        talking.insert(trace)
        let arguments = arguments + ["--trace", trace.path]
        let result = try await fixture.runDetached(arguments, stdin: stdin, descriptor3: code + "\n")
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
    }
}
