import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyStytch
import Testing

/// One-time passcodes the adapter sends (`otps/{sms,whatsapp,email}/login_or_create`) and
/// authenticates with the `method_id` of the answer; the emulator is as strict as Stytch
/// on the phone number's shape, the address, the code's lifetime and the send rate.
@Suite struct StytchOTPSendTests {
    @Test func anSMSCodeLogsInANewUserWithTheMethodIDOfTheSend() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            let sent = try await provider.sendOTP(.sms(phoneNumber: "+15555550177"), expirationMinutes: 5)
            #expect(harness.transport.last("otps/sms/login_or_create")?.body == ["phone_number": "+15555550177", "expiration_minutes": 5])
            #expect(sent.methodID.hasPrefix("phone-number-test-"))
            #expect(sent.userID != nil)
            let delivered = try await harness.emulator.control.sentStytchOTP(to: "+15555550177")
            #expect(delivered.methodID == sent.methodID)
            try await harness.client.login(StytchCredentials.otp(methodID: sent.methodID, code: delivered.code))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == sent.userID)
            let factor = harness.client.currentSession?.raw["authentication_factors"]?.arrayValue?.first
            #expect(factor?["delivery_method"] == "sms")
        }
    }

    @Test func anEmailCodeLogsInAnExistingUserAndWhatsAppUsesItsOwnPath() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            let sent = try await provider.sendOTP(.email("Alice@Example.com"), loginTemplateID: "template-login")
            #expect(
                harness.transport.last("otps/email/login_or_create")?.body == ["email": "Alice@Example.com", "login_template_id": "template-login"])
            let code = try await harness.emulator.control.sentStytchOTP(to: "alice@example.com", channel: "email").code
            try await harness.client.login(StytchCredentials.otp(methodID: sent.methodID, code: code))
            #expect(harness.client.currentUser?.email == "alice@example.com")

            _ = try await provider.sendOTP(.whatsApp(phoneNumber: "+447700900123"))
            #expect(harness.transport.last("otps/whatsapp/login_or_create")?.body == ["phone_number": "+447700900123"])
            #expect(try await harness.emulator.control.sentStytchOTP(to: "+447700900123", channel: "whatsapp").code.count == 6)
        }
    }

    @Test func anExpirationOutOfBoundsOrATemplateForAPhoneIsRefusedBeforeAnyRequest() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            for minutes in [0, 11, -1, Int.max] {
                let error = await authError { _ = try await provider.sendOTP(.sms(phoneNumber: "+15555550177"), expirationMinutes: minutes) }
                #expect(error?.code == .invalidArgument)
            }
            let template = await authError { _ = try await provider.sendOTP(.sms(phoneNumber: "+15555550177"), loginTemplateID: "t") }
            #expect(template?.code == .invalidArgument)
            #expect(await harness.count("otps/sms/login_or_create") == 0)
        }
    }

    @Test func theEmulatorRefusesWhatStytchRefuses() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            for number in ["5555550177", "+0555550177", "+1 555 555 0177", "+1234567890123456", "+1"] {
                let error = await authError { _ = try await provider.sendOTP(.sms(phoneNumber: number)) }
                #expect(error?.providerCode == "invalid_phone_number", "\(number)")
                #expect(error?.code == .invalidArgument)
            }
            for address in ["alice", "alice@", "@example.com", "alice@example", "al ice@example.com"] {
                let error = await authError { _ = try await provider.sendOTP(.email(address)) }
                #expect(error?.providerCode == "invalid_email", "\(address)")
            }
            // What an adapter without the local bound would send.
            for minutes in [0, 11, 2.5] as [Double] {
                let raw = try await StytchRaw.post(
                    harness.endpoint, "otps/sms/login_or_create",
                    ["phone_number": "+15555550177", "expiration_minutes": .number(minutes)])
                #expect(raw["status_code"] == 400, "\(minutes)")
            }
            let missing = try await StytchRaw.post(harness.endpoint, "otps/email/login_or_create", [:])
            #expect(missing["error_type"] == "bad_request")
        }
    }

    @Test func aCodeExpiresAfterItsLifetimeAndTheSendRateIsLimited() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            let sent = try await provider.sendOTP(.sms(phoneNumber: "+15555550188"), expirationMinutes: 1)
            let code = try await harness.emulator.control.sentStytchOTP(to: "+15555550188").code
            harness.advance(by: 61)
            let expired = await authError { try await harness.client.login(StytchCredentials.otp(methodID: sent.methodID, code: code)) }
            #expect(expired?.providerCode == "otp_code_not_found")

            // The first send is past the window now: five more fill it.
            for _ in 0..<5 { _ = try await provider.sendOTP(.sms(phoneNumber: "+15555550188")) }
            let limited = await authError { _ = try await provider.sendOTP(.sms(phoneNumber: "+15555550188")) }
            #expect(limited?.code == .rateLimited)
            #expect(limited?.httpStatus == 429)
            #expect(harness.client.state == .notLoggedIn)
            harness.advance(by: 61)
            _ = try await provider.sendOTP(.sms(phoneNumber: "+15555550188"))
        }
    }

    @Test func theOutboxIsReadOverTheControlAPI() async throws {
        try await StytchHarness.with { harness in
            let sent = try await StytchRaw.post(harness.endpoint, "otps/sms/login_or_create", ["phone_number": "+15555550199"])
            let control = harness.endpoint.baseURL.appending(path: "__emulator/")
            let otp = try await Self.control(control.appending(path: "stytch/otps/sent"), ["to": "+15555550199"])
            #expect(otp["method_id"] != nil)
            #expect(otp["method_id"] == sent["data"]?["method_id"])
            #expect(otp["code"]?.stringValue?.count == 6)
            _ = try await StytchRaw.post(harness.endpoint, "b2b/magic_links/email/discovery/send", ["email_address": "carol@acme.example"])
            let link = try await Self.control(control.appending(path: "stytch/magic-links/sent"), ["email": "carol@acme.example", "discovery": true])
            #expect(link["token"]?.stringValue?.isEmpty == false)
        }
    }

    private static func control(_ url: URL, _ body: JSONObject) async throws -> JSONObject {
        var request = TransportRequest(method: "POST", url: url, body: Data(JSONValue.object(body).jsonBytes))
        request.headers["Content-Type"] = "application/json"
        let response = try await URLSessionTransport().send(request)
        return try #require(try JSONValue.parse(bytes: Array(response.body)).objectValue)
    }
}

/// Discovery before an organization is chosen: the discovery magic link is sent with a
/// PKCE challenge and authenticated with its verifier, giving an intermediate session and
/// the organizations it can enter.
@Suite struct StytchDiscoveryMagicLinkTests {
    @Test func aDiscoveryLinkGivesTheOrganizationsAndTheExchangeEntersOne() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let provider = try #require(harness.client.stytchB2B)
            try await provider.sendDiscoveryMagicLink(emailAddress: "carol@acme.example")
            let sent = try #require(harness.transport.last("b2b/magic_links/email/discovery/send")?.body)
            #expect(sent["email_address"] == "carol@acme.example")
            #expect(sent["pkce_code_challenge"]?.stringValue?.count == 43)
            let token = try await harness.emulator.control.sentStytchDiscoveryMagicLink(email: "carol@acme.example")

            // A restarted client finds the verifier in the store.
            await harness.client.shutdown()
            let restarted = try harness.restarted()
            let discovery = try #require(try await restarted.stytchB2B?.authenticateDiscoveryMagicLink(token: token))
            #expect(discovery.organizations.map(\.organization.slug) == ["acme", "globex"])
            #expect(discovery.emailAddress == "carol@acme.example")
            #expect(!"\(discovery)".contains(discovery.intermediateSessionToken), "the description redacts the token")
            #expect(harness.transport.last("b2b/magic_links/discovery/authenticate")?.body?["pkce_code_verifier"]?.stringValue?.isEmpty == false)
            #expect(try await harness.store.names().contains { $0.hasSuffix("magic_link_pkce_verifier") } == false, "dropped once used")

            try await restarted.login(
                StytchB2BCredentials.discoveryExchange(
                    organizationID: discovery.organizations[1].organization.id,
                    intermediateSessionToken: discovery.intermediateSessionToken))
            #expect(restarted.currentOrganization?.slug == "globex")
            await restarted.shutdown()
        }
    }

    @Test func aDiscoveryLinkSentWithAChallengeIsRefusedWithoutItsVerifierAndUsedOnce() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let provider = try #require(harness.client.stytchB2B)
            try await provider.sendDiscoveryMagicLink(emailAddress: "carol@acme.example")
            let token = try await harness.emulator.control.sentStytchDiscoveryMagicLink(email: "carol@acme.example")
            let without = try await StytchRaw.post(
                harness.endpoint, "b2b/magic_links/discovery/authenticate",
                ["discovery_magic_links_token": .string(token)])
            #expect(without["error_type"] == "pkce_mismatch")
            let wrong = await authError {
                _ = try await provider.authenticateDiscoveryMagicLink(token: token, pkceCodeVerifier: String(repeating: "x", count: 43))
            }
            #expect(wrong?.providerCode == "pkce_mismatch")
            _ = try await provider.authenticateDiscoveryMagicLink(token: token)
            let again = await authError {
                _ = try await provider.authenticateDiscoveryMagicLink(token: token, pkceCodeVerifier: String(repeating: "x", count: 43))
            }
            #expect(again?.providerCode == "pkce_mismatch" || again?.providerCode == "unable_to_auth_magic_link")
            let reused = try await StytchRaw.post(
                harness.endpoint, "b2b/magic_links/discovery/authenticate", ["discovery_magic_links_token": .string(token)])
            #expect(reused["error_type"] == "unable_to_auth_magic_link", "a link works once")
            let malformed = await authError { try await provider.sendDiscoveryMagicLink(emailAddress: "not-an-address") }
            #expect(malformed?.providerCode == "invalid_email")
        }
    }
}
