import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch
import Testing

/// No token, password, code or intermediate session token reaches a log line or an
/// error's description.
@Suite struct StytchSecrecyTests {
    @Test func nothingSecretIsLogged() async throws {
        var secrets: Set<String> = ["alice-password-1", "wrong-password-9", "carol-password-1"]
        var descriptions: [String] = []
        try await StytchHarness.with(options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: true)) { harness in
            try await harness.loginAlice()
            secrets.insert(try await harness.client.accessToken())
            await harness.clock.waitForSleepers(3)  // the heartbeat, the renewal and expiry timers
            await harness.inject("sessions/authenticate", .dropConnection)
            harness.advance(by: 180)
            await settle("tick") { await harness.count("sessions/authenticate") == 1 }
            harness.advance(by: 70)
            await settle("renewed") { await harness.count("sessions/authenticate") >= 2 }
            secrets.insert(try await harness.client.accessToken())
            await harness.inject("sessions/authenticate", .status(503))
            descriptions.append("\(await authError { try await harness.client.renew(sessionDuration: .seconds(3600)) }.map { "\($0)" } ?? "")")
            try await harness.client.logout(revoke: .required)
            descriptions.append(
                "\(await authError { try await harness.client.login(StytchCredentials.password(email: "alice@example.com", password: "wrong-password-9")) }.map { "\($0)" } ?? "")"
            )
            for record in harness.transport.all {
                guard let basic = record.headers["Authorization"]?.dropFirst("Basic ".count),
                    let decoded = Data(base64Encoded: String(basic)).map({ String(decoding: $0, as: UTF8.self) }),
                    let colon = decoded.firstIndex(of: ":")
                else { continue }
                let token = String(decoded[decoded.index(after: colon)...])
                if token != harness.endpoint.publicToken { secrets.insert(token) }
            }
            #expect(secrets.count >= 5)
            for line in harness.logs.all {
                for secret in secrets { #expect(!line.contains(secret), "a secret in the log: \(line)") }
            }
            #expect(harness.logs.all.count > 5)
        }
        try await StytchHarness.with(b2b: true) { harness in
            let error = await authError {
                try await harness.client.login(
                    StytchB2BCredentials.password(
                        organizationID: B2B.acme, emailAddress: "carol@acme.example",
                        password: "carol-password-1"))
            }
            let token = try #require(error?.userAction?.continuationToken)
            let code = try await harness.emulator.control.stytchTOTPCode(memberID: B2B.carol)
            descriptions.append("\(error!)")
            descriptions.append("\(harness.client.state)")
            try await harness.client.login(StytchB2BCredentials.totp(code: code))
            for line in harness.logs.all {
                #expect(!line.contains(token), "the intermediate session token in the log: \(line)")
                #expect(!line.contains(code), "the TOTP code in the log: \(line)")
                #expect(!line.contains("carol-password-1"))
            }
            #expect(descriptions.allSatisfy { !$0.contains(token) })
        }
        for text in descriptions {
            for secret in secrets { #expect(!text.contains(secret), "a secret in: \(text)") }
        }
    }
}
