import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// Consumer logins over real HTTP to the emulator: each method, the request's exact
/// shape, failures and local checks.
@Suite struct StytchLoginTests {
    @Test func passwordLoginEstablishesPersistsAndPublishesTheObjects() async throws {
        try await StytchHarness.with { harness in
            var users = harness.client.userChanges.makeAsyncIterator()
            try await harness.loginAlice(minutes: 60)
            #expect(harness.client.state == .established)
            let session = try #require(harness.client.currentSession)
            let user = try #require(harness.client.currentUser)
            #expect(user.id == "user-test-00000000-0000-4000-8000-00000000a11c")
            #expect(user.email == "alice@example.com")
            #expect(user.name == "Alice Liddell")
            #expect(user.status == "active")
            #expect(user.raw["trusted_metadata"] == .object([:]), "the raw JSON is kept")
            #expect(session.userID == user.id)
            #expect(session.expiresAt == StytchHarness.start.addingTimeInterval(3600))
            #expect(session.authenticationFactors.first?["type"] == "password")
            #expect(session.raw["attributes"]?["ip_address"] == "127.0.0.1")
            #expect(harness.client.currentMember == nil && harness.client.currentOrganization == nil)
            var seen: ObjectInfo<User>?
            while let next = await users.next() {
                seen = next
                if next.value != nil { break }
            }
            #expect(seen == .available(user, lastValidatedAt: harness.clock.now))
            #expect(try await harness.storedRecord() != nil)

            // The request, exactly: Basic auth with the public token twice, X-SDK-Client, JSON body.
            let request = try #require(harness.transport.last("passwords/authenticate"))
            #expect(request.path == "/sdk/v1/passwords/authenticate")
            #expect(request.headers["Content-Type"] == "application/json")
            let basic = Data("\(harness.endpoint.publicToken):\(harness.endpoint.publicToken)".utf8).base64EncodedString()
            #expect(request.headers["Authorization"] == "Basic \(basic)")
            #expect(request.body == ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": 60])
            let header = try #require(request.headers["X-SDK-Client"])
            let client = try JSONValue.parse(bytes: Array(try #require(Data(base64Encoded: header))))
            #expect(client["sdk"]?["identifier"] == "latchkey-swift")
            #expect(client["app"]?["identifier"] == .string(StytchSeed.defaultAppIdentifier))
            #expect(client["os"]?["identifier"] == "linux")
            #expect(client["device"]?["model"]?.stringValue != nil)

            // The JWT is the access token; it is not sent to Stytch as a header.
            let jwt = try await harness.client.accessToken()
            #expect(try JWT.decode(jwt).claims.subject == user.id)
            #expect(harness.transport.all.allSatisfy { record in !record.headers.contains { $0.value.contains(jwt) } })
        }
    }

    @Test func otpLogin() async throws {
        try await StytchHarness.with { harness in
            let otp = try await harness.emulator.control.issueStytchOTP(email: "alice@example.com")
            try await harness.client.login(StytchCredentials.otp(methodID: otp.methodID, code: otp.code))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentSession?.authenticationFactors.first?["type"] == "otp")
            #expect(
                harness.transport.last("otps/authenticate")?.body == [
                    "token": .string(otp.code), "method_id": .string(otp.methodID),
                    "session_duration_minutes": 5,
                ])
        }
    }

    @Test func magicLinkLoginWithAndWithoutPKCE() async throws {
        try await StytchHarness.with { harness in
            let token = try await harness.emulator.control.issueStytchMagicLink(email: "alice@example.com")
            try await harness.client.login(StytchCredentials.magicLink(token: token, codeVerifier: "verifier-123"), sessionDuration: .seconds(600))
            #expect(harness.client.currentSession?.authenticationFactors.first?["type"] == "magic_link")
            #expect(
                harness.transport.last("magic_links/authenticate")?.body == [
                    "token": .string(token), "session_duration_minutes": 10,
                    "code_verifier": "verifier-123",
                ])
            try await harness.client.logout()
            let second = try await harness.emulator.control.issueStytchMagicLink(email: "alice@example.com")
            try await harness.client.login(StytchCredentials.magicLink(token: second))
            #expect(harness.transport.last("magic_links/authenticate")?.body?["code_verifier"] == nil)
            // A used link is refused: the login fails, nobody is signed in.
            try await harness.client.logout()
            let reused = await authError { try await harness.client.login(StytchCredentials.magicLink(token: second)) }
            #expect(reused?.code == .unrecoverable)
            #expect(reused?.providerCode == "unable_to_auth_magic_link")
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func aWrongPasswordFailsTheLoginWithStytchsError() async throws {
        try await StytchHarness.with { harness in
            try await harness.client.start()
            let error = await authError {
                try await harness.client.login(StytchCredentials.password(email: "alice@example.com", password: "wrong-password"))
            }
            #expect(error?.code == .unrecoverable)
            #expect(error?.providerCode == "unauthorized_credentials")
            #expect(error?.httpStatus == 401)
            #expect(error?.message == "The email or password is incorrect.")
            let details = try #require(error?.underlying as? StytchAPIError)
            #expect(details.requestID?.hasPrefix("request-id-test-") == true)
            #expect(details.errorURL == "https://stytch.com/docs/api/errors/401")
            #expect(details.endpoint == "passwords/authenticate")
            #expect(harness.client.state == .notLoggedIn, "a failed login from notLoggedIn returns to notLoggedIn")
            #expect(!"\(error!)".contains("wrong-password"))
        }
    }

    @Test func durationsOutsideStytchsBoundsAreRefusedBeforeAnyRequest() async throws {
        try await StytchHarness.with { harness in
            let credentials = StytchCredentials.password(email: "alice@example.com", password: "alice-password-1")
            for minutes in [4, 527_041] {
                let error = await authError { try await harness.client.login(credentials, sessionDuration: .seconds(minutes * 60)) }
                #expect(error?.code == .invalidArgument)
                #expect(error?.message.contains("between 5 and 527040 minutes") == true)
            }
            #expect(await harness.count("passwords/authenticate") == 0)
            try await harness.client.login(credentials, sessionDuration: .seconds(527_040 * 60))
            #expect(harness.transport.last("passwords/authenticate")?.body?["session_duration_minutes"] == 527_040)
            // The server's own refusal carries error_details.
            try await harness.client.logout()
            await harness.inject("passwords/authenticate", .status(400, error: "invalid_session_duration"))
            let refused = await authError { try await harness.client.login(credentials) }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.providerCode == "invalid_session_duration")
        }
    }

    @Test func errorDetailsAreDecoded() async throws {
        try await StytchHarness.with { harness in
            let error = await authError { try await harness.client.login(StytchCredentials.password(email: "", password: "x")) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.providerCode == "bad_request")
            #expect(error?.httpStatus == 400)
            let details = try #require(error?.underlying as? StytchAPIError)
            #expect(details.errorDetails == .object(["field": "email"]))
            #expect(details.statusCode == 400)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func otherCredentialsAreRefused() async throws {
        try await StytchHarness.with { harness in
            let error = await authError { try await harness.client.login(StytchB2BCredentials.magicLink(token: "x")) }
            #expect(error?.code == .unsupportedCredentials)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func credentialsDescribeThemselvesWithoutSecrets() {
        let all: [any LoginCredentials & CustomStringConvertible] = [
            StytchCredentials.password(email: "a@example.com", password: "pw-secret-1"),
            StytchCredentials.otp(methodID: "email-1", code: "otp-secret-2"),
            StytchCredentials.magicLink(token: "link-secret-3", codeVerifier: "verifier-secret-4"),
            StytchB2BCredentials.password(organizationID: "org", emailAddress: "b@example.com", password: "pw-secret-1"),
            StytchB2BCredentials.totp(code: "otp-secret-2"), StytchB2BCredentials.smsOTP(code: "otp-secret-2"),
            StytchB2BCredentials.recoveryCode("recovery-secret-5"), StytchB2BCredentials.magicLink(token: "link-secret-3"),
            StytchB2BCredentials.discoveryExchange(organizationID: "org", intermediateSessionToken: "ist-secret-6"),
        ]
        for credentials in all {
            var dumped = ""
            dump(credentials, to: &dumped)
            for text in [credentials.description, dumped, String(reflecting: credentials)] {
                #expect(!text.contains("secret"), "\(text)")
            }
        }
    }
}
