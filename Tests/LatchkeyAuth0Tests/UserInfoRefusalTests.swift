import Foundation
import Latchkey
import LatchkeyEmulator
import Testing

@testable import LatchkeyAuth0

/// `/userinfo` refuses a token with a plain-text 401 whose reason is in
/// `WWW-Authenticate`: the adapter reads it there, renews once and checks again.
@Suite("Auth0 /userinfo refusals: plain text, the reason in WWW-Authenticate")
struct UserInfoRefusalTests {
    @Test(
        arguments: [
            (
                #"Bearer realm="tenant.auth0.com", error="invalid_token", error_description="The access token expired""#, "invalid_token",
                "The access token expired"
            ),
            (#"Bearer error=invalid_token"#, "invalid_token", nil),
            (#"bearer   error = "invalid_token" , error_description="a \"quoted\" word""#, "invalid_token", #"a "quoted" word"#),
            (#"DPoP algs="ES256", Bearer realm="x", error="insufficient_scope""#, "insufficient_scope", nil),
            (#"Basic dXNlcjpwYXNz==, Bearer error="invalid_token""#, "invalid_token", nil),
            (#"Bearer realm="x", error="invalid_token", error="other""#, "invalid_token", nil),
            (#"Bearer realm="x""#, nil, nil),
        ] as [(String, String?, String?)])
    func theBearerChallengeIsRead(_ header: String, _ error: String?, _ description: String?) throws {
        let challenge = try #require(BearerChallenge(header: header))
        #expect(challenge.error == error)
        #expect(challenge.errorDescription == description)
    }

    @Test(arguments: [
        #"DPoP error="use_dpop_nonce""#,
        #"Bearer error="unterminated"#,
        "",
        "=",
        String(repeating: "Bearer error=x, ", count: 1_000),
    ])
    func noBearerChallengeIsNone(_ header: String) {
        #expect(BearerChallenge(header: header) == nil)
    }

    @Test func aPlainText401IsReadFromItsChallenge() {
        let now = Date()
        let response = TransportResponse(
            status: 401,
            headers: [
                "Content-Type": "text/plain",
                "WWW-Authenticate": #"Bearer realm="t", error="invalid_token", error_description="expired""#,
            ],
            body: Data("Unauthorized".utf8))
        let error = Auth0ErrorResponse(response).classified(.userInfo, now: now)
        #expect(error.code == .renewAndRecheck)
        #expect(error.providerCode == "invalid_token")
        #expect(error.message.contains("expired"))
    }

    @Test func a401WithoutAReasonIsTransient() {
        // A proxy's 401 says nothing about the session.
        let now = Date()
        let response = TransportResponse(status: 401, body: Data("Unauthorized".utf8))
        #expect(Auth0ErrorResponse(response).classified(.userInfo, now: now).code == .transient)
    }

    @Test func aRestoredSessionWhoseTokenIsRefusedRenewsAndStays() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await harness.emulator.control.expireSessions(of: "auth0|alice", provider: .auth0)
        let restarted = harness.restarted()
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(await harness.count("GET", "/userinfo") == 2, "refused, then accepted after one renewal")
        #expect(await harness.refreshGrants() == 1)
        await restarted.shutdown()
    }
}
