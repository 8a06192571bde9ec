import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// The shapes of Stytch's success bodies and session JWT claims.
extension StytchAPI {
    /// `{"data": {...}}` with the session (or member session), its token, a fresh JWT and
    /// the user (or member and organization).
    func success(_ authenticated: StytchStore.Authenticated, requestID: String) async throws -> EmulatorResponse {
        let session = authenticated.session
        let jwt = try await sessionJWT(authenticated)
        var data = JSONObject()
        data["request_id"] = .string(requestID)
        data["status_code"] = 200
        if let member = authenticated.member, let organization = authenticated.organization {
            data["member_id"] = .string(member.memberID)
            data["member_session"] = .object(memberSessionJSON(session))
            data["member"] = .object(memberJSON(member))
            data["organization"] = .object(organizationJSON(organization))
            data["session_token"] = .string(session.token)
            data["session_jwt"] = .string(jwt)
            data["member_authenticated"] = true
            data["intermediate_session_token"] = ""
        } else if let user = authenticated.user {
            data["user_id"] = .string(user.userID)
            data["session_token"] = .string(session.token)
            data["session_jwt"] = .string(jwt)
            data["session"] = .object(sessionJSON(session))
            data["user"] = .object(userJSON(user))
        }
        return .json(["data": .object(data)])
    }

    /// A B2B sign-in waiting for MFA: no member session, an intermediate session token.
    func intermediateResponse(_ intermediate: StytchStore.Intermediate, requestID: String) -> EmulatorResponse {
        var data = JSONObject()
        data["request_id"] = .string(requestID)
        data["status_code"] = 200
        data["member_id"] = .string(intermediate.member.memberID)
        data["member_session"] = .null
        data["member"] = .object(memberJSON(intermediate.member))
        data["organization"] = .object(organizationJSON(intermediate.organization))
        data["session_token"] = ""
        data["session_jwt"] = ""
        data["member_authenticated"] = false
        data["intermediate_session_token"] = .string(intermediate.token)
        data["mfa_required"] = .object(mfaRequiredJSON(intermediate.member))
        data["primary_required"] = .null
        return .json(["data": .object(data)])
    }

    /// `{member_options: {mfa_phone_number, totp_registration_id} | null, secondary_auth_initiated: null}`.
    func mfaRequiredJSON(_ member: StytchStore.Member) -> JSONObject {
        let options: JSONValue =
            member.mfaPhoneNumber == nil && member.totpRegistrationID == nil
            ? .null
            : .object(["mfa_phone_number": .string(member.mfaPhoneNumber ?? ""), "totp_registration_id": .string(member.totpRegistrationID ?? "")])
        return ["member_options": options, "secondary_auth_initiated": .null]
    }

    // MARK: Objects

    private func time(_ date: Date) -> JSONValue { .string(Timestamp.rfc3339(date)) }

    private func factorsJSON(_ factors: [StytchStore.Factor]) -> JSONValue {
        .array(
            factors.map { factor in
                var object: JSONObject = [
                    "type": .string(factor.type), "delivery_method": .string(factor.deliveryMethod),
                    "last_authenticated_at": time(factor.lastAuthenticatedAt),
                ]
                if let emailID = factor.emailID, let email = factor.email {
                    object["email_factor"] = .object(["email_id": .string(emailID), "email_address": .string(email)])
                }
                return .object(object)
            })
    }

    private func attributesJSON(_ session: StytchStore.Session) -> JSONValue {
        .object(["ip_address": "127.0.0.1", "user_agent": .string(session.userAgent)])
    }

    func sessionJSON(_ session: StytchStore.Session) -> JSONObject {
        [
            "session_id": .string(session.sessionID), "user_id": .string(session.subjectID), "started_at": time(session.startedAt),
            "last_accessed_at": time(session.lastAccessedAt), "expires_at": time(session.expiresAt), "attributes": attributesJSON(session),
            "authentication_factors": factorsJSON(session.factors), "custom_claims": .object([:]), "roles": ["stytch_user"],
        ]
    }

    func memberSessionJSON(_ session: StytchStore.Session) -> JSONObject {
        let slug = session.organizationID.flatMap { _ in seed.organizations.first { $0.organizationID == session.organizationID }?.slug }
        return [
            "member_session_id": .string(session.sessionID), "member_id": .string(session.subjectID),
            "organization_id": .string(session.organizationID ?? ""), "organization_slug": .string(slug ?? ""),
            "started_at": time(session.startedAt), "last_accessed_at": time(session.lastAccessedAt), "expires_at": time(session.expiresAt),
            "authentication_factors": factorsJSON(session.factors), "custom_claims": .object([:]), "roles": ["stytch_member"],
        ]
    }

    func userJSON(_ user: StytchStore.User) -> JSONObject {
        [
            "user_id": .string(user.userID), "created_at": time(user.createdAt), "status": "active",
            "name": .object(["first_name": .string(user.firstName), "middle_name": "", "last_name": .string(user.lastName)]),
            "emails": user.email.isEmpty ? [] : [.object(["email_id": .string(user.emailID), "email": .string(user.email), "verified": true])],
            "phone_numbers": .array(
                user.phoneNumber.map {
                    [
                        .object([
                            "phone_id": .string(user.phoneID ?? ""), "phone_number": .string($0),
                            "verified": true,
                        ])
                    ]
                } ?? []),
            "providers": [], "webauthn_registrations": [], "totps": [], "crypto_wallets": [],
            "password": .object(["password_id": .string("password-test-" + user.userID), "requires_reset": false]),
            "trusted_metadata": .object([:]), "untrusted_metadata": .object([:]), "roles": ["stytch_user"],
        ]
    }

    func memberJSON(_ member: StytchStore.Member) -> JSONObject {
        [
            "member_id": .string(member.memberID), "organization_id": .string(member.organizationID), "email_address": .string(member.email),
            "email_address_verified": true, "status": "active", "name": .string(member.name), "mfa_enrolled": .bool(member.mfaRequired),
            "mfa_phone_number": .string(member.mfaPhoneNumber ?? ""), "is_breakglass": false, "roles": [], "trusted_metadata": .object([:]),
            "untrusted_metadata": .object([:]), "created_at": time(member.createdAt),
        ]
    }

    func organizationJSON(_ organization: StytchStore.Organization) -> JSONObject {
        [
            "organization_id": .string(organization.organizationID), "organization_name": .string(organization.name),
            "organization_slug": .string(organization.slug), "organization_logo_url": "", "trusted_metadata": .object([:]),
            "created_at": time(organization.createdAt),
        ]
    }

    // MARK: Session JWT

    /// RS256, `kid` in the header, 5 minutes: `iss` `stytch.com/{project_id}`, `aud`
    /// `[project_id]`, `sub` (user or member), `exp`, `iat`, `nbf`, the session claim and,
    /// for B2B, the organization claim.
    func sessionJWT(_ authenticated: StytchStore.Authenticated) async throws -> String {
        let session = authenticated.session
        let now = Timestamp.seconds(clock.now)
        var sessionClaim: JSONObject = [
            "id": .string(session.sessionID), "started_at": time(session.startedAt),
            "last_accessed_at": time(session.lastAccessedAt), "expires_at": time(session.expiresAt),
            "attributes": attributesJSON(session), "authentication_factors": factorsJSON(session.factors),
        ]
        sessionClaim["roles"] = authenticated.member == nil ? ["stytch_user"] : ["stytch_member"]
        var claims: JSONObject = [
            "sub": .string(session.subjectID), "iss": .string("stytch.com/\(seed.projectID)"),
            "aud": [.string(seed.projectID)], "exp": .number(now + Self.jwtLifetime), "iat": .number(now),
            "nbf": .number(now), "https://stytch.com/session": .object(sessionClaim),
        ]
        if let organization = authenticated.organization {
            claims["https://stytch.com/organization"] = .object([
                "organization_id": .string(organization.organizationID),
                "slug": .string(organization.slug),
            ])
        }
        return try JWT.sign(claims, key: await keys.signingKey)
    }
}
