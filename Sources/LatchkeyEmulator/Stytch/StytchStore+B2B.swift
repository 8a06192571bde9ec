import Foundation
internal import LatchkeyCrypto

/// B2B second factors, email magic links and discovery: intermediate sessions (10
/// minutes), SMS one-time passcodes, TOTP (RFC 6238 over HMAC-SHA-256, 30-second steps,
/// one step of drift), recovery codes, and the exchange of an intermediate session for
/// a member session in one organization.
extension StytchStore {
    /// An intermediate session: whose primary factors, for which member (when known).
    struct IntermediateSession: Sendable {
        var email: String
        var memberID: String?
        var organizationID: String?
        var factors: [Factor]
        var expiresAt: Date
    }

    /// How long an intermediate session lives.
    static let intermediateLifetime: TimeInterval = 600

    /// The second factor an MFA call presents.
    enum SecondFactor: Sendable {
        case smsOTP(String)
        case totp(String)
        case recoveryCode(String)
    }

    /// What a recovery-code login leaves, for `recovery_codes_remaining`.
    struct MFASignIn: Sendable {
        var authenticated: Authenticated
        var recoveryCodesRemaining: Int?
    }

    static func enrollMFA(_ member: inout Member, seed: StytchSeed.Member) throws {
        member.mfaPhoneNumber = seed.mfaPhoneNumber
        if let secret = seed.totpSecret {
            member.totpRegistrationID = "member-totp-test-" + (try OpaqueToken.uuid())
            member.totpSecret = Array(secret.utf8)
            member.recoveryCodes = try (0..<10).map { _ in "\(try OpaqueToken.digits(4))-\(try OpaqueToken.digits(4))-\(try OpaqueToken.digits(4))" }
        }
    }

    // MARK: Intermediate sessions

    func intermediate(_ token: String) throws(StytchError) -> IntermediateSession {
        guard let session = intermediates[token], session.expiresAt > clock.now else { throw .intermediateSessionNotFound }
        return session
    }

    /// The member an MFA call names, checked against the intermediate session.
    private func mfaMember(token: String, organizationID: String, memberID: String) throws(StytchError) -> Member {
        let session = try intermediate(token)
        guard let member = members[memberID], member.organizationID == organizationID, !member.banned,
            session.memberID == memberID || (session.memberID == nil && session.email == member.email)
        else { throw .intermediateSessionNotFound }
        return member
    }

    /// `b2b/otps/sms/send`: a 6-digit code to the member's phone (or `phone`, enrolling it).
    func sendSMS(token: String, organizationID: String, memberID: String, phone: String?) throws -> (Member, Organization) {
        var member = try mfaMember(token: token, organizationID: organizationID, memberID: memberID)
        if member.mfaPhoneNumber == nil {
            guard let phone else { throw StytchError.badRequest("The member has no MFA phone number; send mfa_phone_number.") }
            member.mfaPhoneNumber = phone
            members[memberID] = member
        }
        smsCodes[memberID] = OneTimeCode(code: try OpaqueToken.digits(6), userID: memberID, expiresAt: clock.now.addingTimeInterval(600))
        guard let organization = organizations[organizationID] else { throw StytchError.organizationNotFound }
        return (member, organization)
    }

    /// Finishes an MFA-pending sign-in with a second factor: a member session with the
    /// primary factors and this one; the intermediate session is used up.
    func completeMFA(
        token: String, organizationID: String, memberID: String, factor second: SecondFactor, minutes: Int,
        userAgent: String
    ) throws -> MFASignIn {
        var member = try mfaMember(token: token, organizationID: organizationID, memberID: memberID)
        let now = clock.now
        let factor: Factor
        var remaining: Int?
        switch second {
        case .smsOTP(let code):
            guard let sent = smsCodes[memberID], sent.expiresAt > now, constantTimeEquals(sent.code, code) else { throw StytchError.otpNotFound }
            smsCodes[memberID] = nil
            factor = Factor(type: "sms_otp", deliveryMethod: "sms", lastAuthenticatedAt: now)
        case .totp(let code):
            guard let secret = member.totpSecret else { throw StytchError.totpNotFound }
            let accepted = try [-1, 0, 1].map { try Self.totp(secret: secret, at: now.addingTimeInterval(Double($0) * 30)) }
            guard accepted.contains(where: { constantTimeEquals($0, code) }) else { throw StytchError.totpCodeInvalid }
            factor = Factor(type: "totp", deliveryMethod: "authenticator_app", lastAuthenticatedAt: now)
        case .recoveryCode(let code):
            guard let index = member.recoveryCodes.firstIndex(where: { constantTimeEquals($0, code) }) else { throw StytchError.recoveryCodeInvalid }
            member.recoveryCodes.remove(at: index)
            members[memberID] = member
            remaining = member.recoveryCodes.count
            factor = Factor(type: "recovery_code", deliveryMethod: "recovery_code", lastAuthenticatedAt: now)
        }
        let primary = intermediates.removeValue(forKey: token)?.factors ?? []
        let authenticated = try openMemberSession(member, factors: primary + [factor], minutes: minutes, userAgent: userAgent)
        return MFASignIn(authenticated: authenticated, recoveryCodesRemaining: remaining)
    }

    private func openMemberSession(_ member: Member, factors: [Factor], minutes: Int, userAgent: String) throws -> Authenticated {
        guard let organization = organizations[member.organizationID], let last = factors.last else { throw StytchError.organizationNotFound }
        var session = try open(
            subjectID: member.memberID, organizationID: member.organizationID, factor: last, minutes: minutes,
            existingToken: nil, userAgent: userAgent)
        session.factors = factors
        sessions[session.sessionID] = session
        return Authenticated(session: session, member: member, organization: organization)
    }

    // MARK: Email magic links

    func issueB2BMagicLink(email: String, organizationID: String, lifetime: TimeInterval = 3600) throws -> String? {
        guard let member = members.values.first(where: { $0.organizationID == organizationID && $0.email == email.lowercased() }) else { return nil }
        let token = try OpaqueToken.make()
        b2bMagicLinks[token] = OneTimeCode(code: token, userID: member.memberID, expiresAt: clock.now.addingTimeInterval(lifetime))
        return token
    }

    /// `b2b/magic_links/email/login_or_signup`: "emails" a link to an existing member
    /// (kept for the control API), bound to `codeChallenge` when the send carried one.
    func sendB2BMagicLink(organizationID: String, email: String, codeChallenge: String?) throws -> (Member, Organization) {
        guard let organization = organizations[organizationID] else { throw StytchError.organizationNotFound }
        guard let token = try issueB2BMagicLink(email: email, organizationID: organizationID),
            let member = members.values.first(where: { $0.organizationID == organizationID && $0.email == email.lowercased() })
        else {
            throw StytchError(status: 404, type: "member_not_found", message: "Member could not be found.")
        }
        if let codeChallenge { b2bMagicLinkChallenges[token] = codeChallenge }
        sentMagicLinks[organizationID + " " + email.lowercased()] = token
        return (member, organization)
    }

    /// Redeems a B2B link; one sent with a PKCE challenge needs the verifier that hashes
    /// to it (checked before the link is used up).
    func redeemB2BMagicLink(_ token: String, pkceCodeVerifier: String?) throws(StytchError) -> Member {
        if let challenge = b2bMagicLinkChallenges[token] {
            guard let pkceCodeVerifier, PKCE.verifies(pkceCodeVerifier, challenge: challenge) else { throw .pkceMismatch }
            b2bMagicLinkChallenges[token] = nil
        }
        guard let link = b2bMagicLinks.removeValue(forKey: token), link.expiresAt > clock.now, let member = members[link.userID], !member.banned
        else { throw .magicLinkNotFound }
        return member
    }

    // MARK: Discovery

    /// An intermediate session for `email` after a discovery sign-in (an email magic
    /// link authenticated elsewhere): no organization yet.
    func issueDiscoverySession(email: String) throws -> String? {
        guard members.values.contains(where: { $0.email == email.lowercased() }) else { return nil }
        let token = try OpaqueToken.make()
        intermediates[token] = IntermediateSession(
            email: email.lowercased(), memberID: nil, organizationID: nil,
            factors: [
                Factor(
                    type: "magic_link", deliveryMethod: "email", lastAuthenticatedAt: clock.now,
                    email: email.lowercased())
            ],
            expiresAt: clock.now.addingTimeInterval(Self.intermediateLifetime))
        return token
    }

    /// The organizations with a member of the intermediate session's email, by slug.
    func discover(token: String) throws(StytchError) -> (email: String, found: [(Organization, Member)]) {
        let session = try intermediate(token)
        let found = members.values.filter { $0.email == session.email && !$0.banned }
            .compactMap { member in organizations[member.organizationID].map { ($0, member) } }
            .sorted { $0.0.slug < $1.0.slug }
        return (session.email, found)
    }

    /// Exchanges an intermediate session for a member session in `organizationID`; a
    /// member who needs MFA gets the same token back, now bound to that member.
    func exchange(token: String, organizationID: String, minutes: Int, userAgent: String) throws -> MemberSignIn {
        let session = try intermediate(token)
        guard let organization = organizations[organizationID] else { throw StytchError.organizationNotFound }
        guard let member = members.values.first(where: { $0.organizationID == organizationID && $0.email == session.email }), !member.banned else {
            throw StytchError(status: 403, type: "no_eligible_membership", message: "The email has no membership in this organization.")
        }
        if member.mfaRequired {
            intermediates[token]?.memberID = member.memberID
            intermediates[token]?.organizationID = organizationID
            return .mfaRequired(Intermediate(token: token, member: member, organization: organization))
        }
        intermediates[token] = nil
        return .session(try openMemberSession(member, factors: session.factors, minutes: minutes, userAgent: userAgent))
    }

    // MARK: Control

    func lastSMSCode(memberID: String) -> String? { smsCodes[memberID]?.code }

    func totpCode(memberID: String) throws -> String? {
        guard let secret = members[memberID]?.totpSecret else { return nil }
        return try Self.totp(secret: secret, at: clock.now)
    }

    func recoveryCodes(memberID: String) -> [String]? { members[memberID].map(\.recoveryCodes) }

    /// RFC 6238 with HMAC-SHA-256: 30-second steps from 1970, 6 digits.
    static func totp(secret: [UInt8], at date: Date) throws -> String {
        let counter = UInt64(max(0, date.timeIntervalSince1970 / 30).rounded(.down))
        let message = (0..<8).reversed().map { UInt8(truncatingIfNeeded: counter >> (UInt64($0) * 8)) }
        let mac = try HMACKey(algorithm: .sha256, key: secret).authenticationCode(for: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value =
            (UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3]))
            % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: 6 - text.count) + text
    }
}
