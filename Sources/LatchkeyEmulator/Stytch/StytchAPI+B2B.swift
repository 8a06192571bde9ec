import Foundation
import LatchkeyJSON

/// B2B MFA (SMS OTP, TOTP, recovery codes), email magic links and discovery.
extension StytchAPI {
    /// Answers the B2B routes beyond passwords and sessions; `nil` for another route.
    func handleB2B(_ route: EmulatorRoute, fields: JSONObject, userAgent: String, requestID: String) async throws -> EmulatorResponse? {
        switch route {
        case Self.b2bMagicLinksAuthenticate:
            guard let token = fields.nonEmptyString("magic_links_token") else { throw StytchError.missing("magic_links_token") }
            let minutes = try duration(fields, default: 5) ?? 5
            let member = try await store.redeemB2BMagicLink(token, pkceCodeVerifier: fields.nonEmptyString("pkce_code_verifier"))
            let factor = StytchStore.Factor(
                type: "magic_link", deliveryMethod: "email", lastAuthenticatedAt: clock.now, emailID: member.emailID,
                email: member.email)
            return try await memberSignIn(
                store.startMemberSession(
                    member: member, factor: factor, minutes: minutes, existingToken: nil,
                    userAgent: userAgent), requestID: requestID)
        case Self.b2bMagicLinksEmailLoginOrSignup:
            guard let organizationID = fields.nonEmptyString("organization_id") else { throw StytchError.missing("organization_id") }
            guard let email = fields.nonEmptyString("email_address") else { throw StytchError.missing("email_address") }
            let (member, organization) = try await store.sendB2BMagicLink(
                organizationID: organizationID, email: email,
                codeChallenge: fields.nonEmptyString("pkce_code_challenge"))
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "member_id": .string(member.memberID),
                    "member_created": false, "member": .object(memberJSON(member)),
                    "organization": .object(organizationJSON(organization)),
                ])
            ])
        case Self.b2bSMSSend:
            let (organizationID, memberID, token) = try mfaFields(fields)
            let (member, organization) = try await store.sendSMS(
                token: token, organizationID: organizationID, memberID: memberID,
                phone: fields.nonEmptyString("mfa_phone_number"))
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "member_id": .string(member.memberID),
                    "member": .object(memberJSON(member)), "organization": .object(organizationJSON(organization)),
                ])
            ])
        case Self.b2bSMSAuthenticate, Self.b2bTOTPAuthenticate, Self.b2bRecoveryCodesRecover:
            let (organizationID, memberID, token) = try mfaFields(fields)
            let factor: StytchStore.SecondFactor
            if route == Self.b2bRecoveryCodesRecover {
                guard let code = fields.nonEmptyString("recovery_code") else { throw StytchError.missing("recovery_code") }
                factor = .recoveryCode(code)
            } else {
                guard let code = fields.nonEmptyString("code") else { throw StytchError.missing("code") }
                factor = route == Self.b2bSMSAuthenticate ? .smsOTP(code) : .totp(code)
            }
            let minutes = try duration(fields, default: 5) ?? 5
            let signIn = try await store.completeMFA(
                token: token, organizationID: organizationID, memberID: memberID, factor: factor,
                minutes: minutes, userAgent: userAgent)
            var response = try await success(signIn.authenticated, requestID: requestID)
            if let remaining = signIn.recoveryCodesRemaining, case .object(var body) = try JSONValue.parse(bytes: response.body),
                var data = body["data"]?.objectValue
            {
                data["recovery_codes_remaining"] = .number(Double(remaining))
                body["data"] = .object(data)
                response = .json(body)
            }
            return response
        case Self.b2bDiscoveryOrganizations:
            guard let token = fields.nonEmptyString("intermediate_session_token") else { throw StytchError.missing("intermediate_session_token") }
            let (email, found) = try await store.discover(token: token)
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "email_address": .string(email),
                    "discovered_organizations": discoveredJSON(found),
                ])
            ])
        case Self.b2bMagicLinksDiscoverySend:
            guard let email = fields.nonEmptyString("email_address") else { throw StytchError.missing("email_address") }
            guard Self.isEmailShaped(email) else { throw StytchError(status: 400, type: "invalid_email", message: "The email address is not valid.") }
            try await store.sendDiscoveryMagicLink(email: email, codeChallenge: fields.nonEmptyString("pkce_code_challenge"))
            return .json(["data": .object(["request_id": .string(requestID), "status_code": 200])])
        case Self.b2bMagicLinksDiscoveryAuthenticate:
            guard let token = fields.nonEmptyString("discovery_magic_links_token") else { throw StytchError.missing("discovery_magic_links_token") }
            let intermediate = try await store.redeemDiscoveryMagicLink(token, pkceCodeVerifier: fields.nonEmptyString("pkce_code_verifier"))
            let (email, found) = try await store.discover(token: intermediate)
            return .json([
                "data": .object([
                    "request_id": .string(requestID), "status_code": 200, "intermediate_session_token": .string(intermediate),
                    "email_address": .string(email), "discovered_organizations": discoveredJSON(found),
                ])
            ])
        case Self.b2bDiscoveryExchange:
            guard let token = fields.nonEmptyString("intermediate_session_token") else { throw StytchError.missing("intermediate_session_token") }
            guard let organizationID = fields.nonEmptyString("organization_id") else { throw StytchError.missing("organization_id") }
            let minutes = try duration(fields, default: 5) ?? 5
            return try await memberSignIn(
                store.exchange(token: token, organizationID: organizationID, minutes: minutes, userAgent: userAgent),
                requestID: requestID)
        default:
            return nil
        }
    }

    /// `discovered_organizations`: each organization with the address's membership.
    private func discoveredJSON(_ found: [(StytchStore.Organization, StytchStore.Member)]) -> JSONValue {
        .array(
            found.map { organization, member in
                .object([
                    "organization": .object(organizationJSON(organization)),
                    "membership": .object(["type": "active_member", "details": .null, "member": .object(memberJSON(member))]),
                    "member_authenticated": .bool(!member.mfaRequired), "primary_required": .null,
                    "mfa_required": member.mfaRequired ? .object(mfaRequiredJSON(member)) : .null,
                ])
            })
    }

    private func memberSignIn(_ signIn: StytchStore.MemberSignIn, requestID: String) async throws -> EmulatorResponse {
        switch signIn {
        case .session(let authenticated): try await success(authenticated, requestID: requestID)
        case .mfaRequired(let intermediate): intermediateResponse(intermediate, requestID: requestID)
        }
    }

    private func mfaFields(_ fields: JSONObject) throws(StytchError) -> (organizationID: String, memberID: String, token: String) {
        guard let organizationID = fields.nonEmptyString("organization_id") else { throw .missing("organization_id") }
        guard let memberID = fields.nonEmptyString("member_id") else { throw .missing("member_id") }
        guard let token = fields.nonEmptyString("intermediate_session_token") else { throw .missing("intermediate_session_token") }
        return (organizationID, memberID, token)
    }
}
