import Foundation
import Latchkey
import Testing

/// No token reaches a log line, a description, or reflection.
@Suite struct SecrecyTests {
    @Test func noTokenAppearsInAnyLogLineOrDescription() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: .seconds(60)))
        try await harness.login()
        var seenTokens: Set<String> = []
        func record() async throws {
            let tokens = try await harness.client.accessToken()
            seenTokens.insert(tokens)
        }
        try await record()
        // Heartbeats, failures, proactive and forced renewals, a 401 retry, a second 401,
        // a terminated session and a logout: every code path that logs.
        harness.provider.script(validate: [.failTransport])
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(60))
        await settle("beat") { harness.provider.counts.validate == 1 }
        harness.clock.advance(by: .seconds(200))
        await settle("proactive renewal") { harness.provider.counts.renew >= 1 }
        try await record()
        harness.provider.revokeAccessTokenAtServer()
        _ = try await harness.client.send(HTTPRequest(url: URL(string: "https://api.example.com/?token=query-secret")!))
        try await record()
        harness.api.alwaysUnauthorized.store(true, ordering: .relaxed)
        let unauthorized = await authError { _ = try await harness.client.send(HTTPRequest(url: URL(string: "https://api.example.com/?token=query-secret")!)) }
        try await record()
        harness.provider.script(renew: [.fail(AuthError(.unrecoverable, "Unknown or invalid refresh token.", providerCode: "invalid_grant", httpStatus: 403))])
        let ended = await authError { try await harness.client.renew() }
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        try await record()
        try await harness.client.logout(revoke: .required)

        let secret = harness.provider.secret
        let lines = harness.logs.all
        #expect(lines.count > 10, "the scenario logs")
        for line in lines {
            #expect(!line.contains(secret), "a token in the log: \(line)")
            #expect(!line.contains("query-secret"), "a query string in the log: \(line)")
        }
        let tokens = SessionTokens(accessToken: "access-\(secret)", sessionToken: "session-\(secret)", refreshToken: "refresh-\(secret)",
                                   idToken: "id-\(secret)", expiresAt: Date())
        var dumped = ""
        dump(tokens, to: &dumped)
        let action = UserAction(kind: "mfa", continuationToken: "mfa-\(secret)")
        var dumpedAction = ""
        dump(action, to: &dumpedAction)
        let texts = ["\(tokens)", String(reflecting: tokens), dumped, "\(action)", dumpedAction,
                     "\(unauthorized.map { "\($0)" } ?? "")", "\(ended.map { "\($0)" } ?? "")"]
        for text in texts { #expect(!text.contains(secret), "a token in: \(text)") }
        #expect("\(tokens)".contains("redacted"))
        #expect(seenTokens.count >= 3)
    }
}
