import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// B2B: member sessions, MFA through each second factor, discovery, and the
/// intermediate session's expiry.
@Suite struct StytchB2BTests {
    static let carolPassword = StytchB2BCredentials.password(
        organizationID: B2B.acme, emailAddress: "carol@acme.example",
        password: "carol-password-1")

    /// Logs carol in with her password: MFA pending.
    private func pendingCarol(_ harness: StytchHarness) async throws -> UserAction {
        let error = await authError { try await harness.client.login(Self.carolPassword) }
        #expect(error?.code == .needsUserAction)
        let action = try #require(harness.client.pendingUserAction)
        #expect(error?.userAction == action)
        return action
    }

    @Test func passwordLoginPublishesMemberSessionMemberAndOrganization() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            try await harness.client.login(
                StytchB2BCredentials.password(
                    organizationID: B2B.acme, emailAddress: "bob@acme.example",
                    password: "bob-password-1"), sessionDuration: .seconds(3600))
            #expect(harness.client.state == .established)
            let session = try #require(harness.client.currentMemberSession)
            #expect(session.memberID == B2B.bob)
            #expect(session.organizationID == B2B.acme)
            #expect(session.organizationSlug == "acme")
            #expect(session.expiresAt == harness.clock.now.addingTimeInterval(3600))
            #expect(harness.client.currentMember?.email == "bob@acme.example")
            #expect(harness.client.currentMember?.raw["is_breakglass"] == false)
            #expect(harness.client.currentOrganization?.slug == "acme")
            #expect(harness.client.currentOrganization?.name == "Acme")
            #expect(harness.client.currentSession == nil && harness.client.currentUser == nil)
            #expect(
                harness.transport.last("b2b/passwords/authenticate")?.body == [
                    "organization_id": .string(B2B.acme), "email_address": "bob@acme.example", "password": "bob-password-1",
                    "session_duration_minutes": 60,
                ])
            // Checked and revoked on the B2B endpoints.
            try await harness.client.renew()
            #expect(await harness.count("b2b/sessions/authenticate") == 1)
            try await harness.client.logout(revoke: .required)
            #expect(await harness.count("b2b/sessions/revoke") == 1)
        }
    }

    @Test func emailMagicLinkLogin() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let token = try await harness.emulator.control.issueStytchB2BMagicLink(email: "bob@acme.example", organizationID: B2B.acme)
            try await harness.client.login(StytchB2BCredentials.magicLink(token: token))
            #expect(harness.client.currentMemberSession?.authenticationFactors.first?["type"] == "magic_link")
            #expect(
                harness.transport.last("b2b/magic_links/authenticate")?.body == ["magic_links_token": .string(token), "session_duration_minutes": 5])
        }
    }

    @Test func mfaPendingIsAUserActionWithStytchsRequirements() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let action = try await pendingCarol(harness)
            #expect(harness.client.state == .needsUserAction(action))
            #expect(action.kind == "mfa")
            #expect(action.continuationToken?.isEmpty == false)
            #expect(action.expiresAt == harness.clock.now.addingTimeInterval(600))
            #expect(action.requirements?["member_id"] == .string(B2B.carol))
            #expect(action.requirements?["organization_id"] == .string(B2B.acme))
            #expect(action.requirements?["mfa_required"]?["member_options"]?["mfa_phone_number"] == "+15555550123")
            #expect(action.requirements?["mfa_required"]?["member_options"]?["totp_registration_id"]?.stringValue?.isEmpty == false)
            #expect(action.requirements?["primary_required"] == .null)
            #expect(try await harness.storedRecord() == nil, "nothing is stored for an intermediate session")
            #expect(!"\(action)".contains(action.continuationToken!))
        }
    }

    @Test func finishingMFAWithSMS() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let action = try await pendingCarol(harness)
            try await #require(harness.client.stytchB2B).sendSMSOTP(for: action)
            #expect(harness.client.state == .needsUserAction(action), "sending is not a login")
            let sent = try #require(harness.transport.last("b2b/otps/sms/send"))
            #expect(
                sent.body == [
                    "organization_id": .string(B2B.acme), "member_id": .string(B2B.carol),
                    "intermediate_session_token": .string(action.continuationToken!),
                ])
            let code = try #require(try await harness.emulator.control.stytchSMSCode(memberID: B2B.carol))
            // A wrong code keeps the pending action for another try.
            let wrong = await authError { try await harness.client.login(StytchB2BCredentials.smsOTP(code: "000000" == code ? "111111" : "000000")) }
            #expect(wrong?.code == .unrecoverable)
            #expect(wrong?.providerCode == "otp_code_not_found")
            #expect(harness.client.state == .needsUserAction(action), "the pending action stays for another try")
            try await harness.client.login(StytchB2BCredentials.smsOTP(code: code))
            #expect(harness.client.state == .established)
            let factors = try #require(harness.client.currentMemberSession?.authenticationFactors).compactMap { $0["type"]?.stringValue }
            #expect(factors == ["password", "sms_otp"])
            #expect(harness.transport.last("b2b/otps/sms/authenticate")?.body?["intermediate_session_token"] == .string(action.continuationToken!))
            #expect(try await harness.storedRecord() != nil)
            #expect(harness.client.pendingUserAction == nil, "the member session replaced the intermediate token")
        }
    }

    @Test func finishingMFAWithTOTP() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            _ = try await pendingCarol(harness)
            let code = try await harness.emulator.control.stytchTOTPCode(memberID: B2B.carol)
            try await harness.client.login(StytchB2BCredentials.totp(code: code), sessionDuration: .seconds(1800))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentMemberSession?.authenticationFactors.last?["type"] == "totp")
            #expect(harness.transport.last("b2b/totp/authenticate")?.body?["session_duration_minutes"] == 30)
        }
    }

    @Test func finishingMFAWithARecoveryCode() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            _ = try await pendingCarol(harness)
            let codes = try await harness.emulator.control.stytchRecoveryCodes(memberID: B2B.carol)
            try await harness.client.login(StytchB2BCredentials.recoveryCode(codes[0]))
            #expect(harness.client.state == .established)
            #expect(try await harness.emulator.control.stytchRecoveryCodes(memberID: B2B.carol).count == codes.count - 1)
            // A used code is refused on the next login.
            try await harness.client.logout()
            _ = try await pendingCarol(harness)
            let reused = await authError { try await harness.client.login(StytchB2BCredentials.recoveryCode(codes[0])) }
            #expect(reused?.code == .unrecoverable)
            #expect(harness.client.pendingUserAction != nil)
            #expect(reused?.message.contains("recovery code") == true)
        }
    }

    @Test func theIntermediateSessionExpiresAfterTenMinutes() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let action = try await pendingCarol(harness)
            await harness.clock.waitForSleepers(1)
            harness.advance(by: 599)
            await Task.yield()
            #expect(harness.client.state == .needsUserAction(action))
            harness.advance(by: 1)
            await settle("expired") { harness.client.state == .notLoggedIn }
            let error = await authError {
                try await harness.client.login(
                    StytchB2BCredentials.totp(
                        code: "123456", organizationID: B2B.acme, memberID: B2B.carol,
                        intermediateSessionToken: action.continuationToken))
            }
            #expect(error?.providerCode == "intermediate_session_not_found")
            #expect(harness.client.state == .notLoggedIn)
            // Without a pending action, a second factor has nothing to finish.
            let none = await authError { try await harness.client.login(StytchB2BCredentials.totp(code: "123456")) }
            #expect(none?.code == .invalidState)
        }
    }

    @Test func discoveryListsOrganizationsAndExchangesIntoOne() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let token = try await harness.emulator.control.issueStytchDiscoverySession(email: "carol@acme.example")
            let adapter = try #require(harness.client.stytchB2B)
            let found = try await adapter.discoveredOrganizations(intermediateSessionToken: token)
            #expect(found.map(\.organization.slug) == ["acme", "globex"])
            #expect(found.map(\.memberAuthenticated) == [false, true])
            #expect(found[0].requirements["mfa_required"]?["member_options"]?["mfa_phone_number"] == "+15555550123")
            #expect(found[1].member?.id == "member-test-00000000-0000-4000-8000-00000000ca02")
            #expect(found[1].membershipType == "active_member")

            try await harness.client.login(
                StytchB2BCredentials.discoveryExchange(
                    organizationID: found[1].organization.id,
                    intermediateSessionToken: token))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentOrganization?.slug == "globex")
            #expect(
                harness.transport.last("b2b/discovery/intermediate_sessions/exchange")?.body == [
                    "intermediate_session_token": .string(token), "organization_id": .string(found[1].organization.id), "session_duration_minutes": 5,
                ])
        }
    }

    @Test func discoveryIntoAnOrganizationWithMFAThenTOTP() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let token = try await harness.emulator.control.issueStytchDiscoverySession(email: "carol@acme.example")
            let error = await authError {
                try await harness.client.login(StytchB2BCredentials.discoveryExchange(organizationID: B2B.acme, intermediateSessionToken: token))
            }
            #expect(error?.code == .needsUserAction)
            let action = try #require(harness.client.pendingUserAction)
            #expect(action.continuationToken == token, "Stytch answers with the same intermediate session")
            #expect(action.requirements?["member_id"] == .string(B2B.carol))
            try await harness.client.login(StytchB2BCredentials.totp(code: try await harness.emulator.control.stytchTOTPCode(memberID: B2B.carol)))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentOrganization?.slug == "acme")
            let factors = harness.client.currentMemberSession?.authenticationFactors.compactMap { $0["type"]?.stringValue }
            #expect(factors == ["magic_link", "totp"])
        }
    }

    @Test func a401FromANonSessionEndpointKeepsTheSession() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            try await harness.client.login(
                StytchB2BCredentials.password(
                    organizationID: B2B.acme, emailAddress: "bob@acme.example",
                    password: "bob-password-1"))
            await harness.inject("b2b/discovery/organizations", .status(401, error: "unauthorized_credentials"))
            let error = await authError {
                _ = try await harness.client.stytchB2B?.discoveredOrganizations(intermediateSessionToken: "anything")
            }
            #expect(error?.providerCode == "unauthorized_credentials")
            #expect(error?.httpStatus == 401)
            #expect(harness.client.state == .established)
            #expect(try await harness.storedRecord() != nil)
            try await harness.client.renew()
            #expect(harness.client.state == .established)
        }
    }

    @Test func restoreAfterRestart() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            try await harness.client.login(
                StytchB2BCredentials.password(
                    organizationID: B2B.acme, emailAddress: "bob@acme.example",
                    password: "bob-password-1"))
            await harness.client.shutdown()
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .established)
            #expect(restarted.currentMember?.id == B2B.bob)
            #expect(restarted.currentOrganization?.id == B2B.acme)
            #expect(await harness.count("b2b/sessions/authenticate") == 1)
            await restarted.shutdown()
        }
    }
}
