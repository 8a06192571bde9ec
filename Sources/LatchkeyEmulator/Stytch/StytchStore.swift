import Foundation
internal import LatchkeyCrypto

/// The state of an emulated Stytch project: users, organizations and members, sessions,
/// and the one-time passcodes and magic links the control API has issued.
actor StytchStore {
    struct User: Sendable {
        var userID: String
        var emailID: String
        var email: String
        var password: String
        var firstName: String
        var lastName: String
        var createdAt: Date
        var banned = false
        /// The phone number one-time passcodes by SMS or WhatsApp went to, and its method ID.
        var phoneNumber: String?
        var phoneID: String?
    }

    struct Organization: Sendable {
        var organizationID: String
        var slug: String
        var name: String
        var createdAt: Date
    }

    struct Member: Sendable {
        var memberID: String
        var organizationID: String
        var emailID: String
        var email: String
        var password: String
        var name: String
        var mfaRequired: Bool
        var createdAt: Date
        var banned = false
        /// The phone number SMS one-time passcodes go to.
        var mfaPhoneNumber: String?
        /// The TOTP registration: its ID and secret.
        var totpRegistrationID: String?
        var totpSecret: [UInt8]?
        /// Unused recovery codes (issued with a TOTP registration).
        var recoveryCodes: [String] = []
    }

    struct Factor: Sendable {
        var type: String
        var deliveryMethod: String
        var lastAuthenticatedAt: Date
        var emailID: String?
        var email: String?
    }

    /// A session; `organizationID` is set for B2B member sessions.
    struct Session: Sendable {
        var sessionID: String
        var token: String
        var subjectID: String
        var organizationID: String?
        var startedAt: Date
        var lastAccessedAt: Date
        var expiresAt: Date
        var factors: [Factor]
        var userAgent: String
    }

    /// What an authentication produced: the session and whom it belongs to.
    struct Authenticated: Sendable {
        var session: Session
        var user: User?
        var member: Member?
        var organization: Organization?
    }

    /// A B2B sign-in that still needs MFA.
    struct Intermediate: Sendable {
        var token: String
        var member: Member
        var organization: Organization
    }

    /// How a member's sign-in ended: a session, or an intermediate one pending MFA.
    enum MemberSignIn: Sendable {
        case session(Authenticated)
        case mfaRequired(Intermediate)
    }

    struct OneTimeCode {
        var code: String
        var userID: String
        var expiresAt: Date
        /// How it was delivered (`email`, `sms`, `whatsapp`): the factor's `delivery_method`.
        var delivery = "email"
    }

    private struct MagicLink {
        var userID: String
        var expiresAt: Date
        /// The PKCE challenge the link was sent with, if any.
        var codeChallenge: String?
    }

    var users: [String: User] = [:]
    var organizations: [String: Organization] = [:]
    var members: [String: Member] = [:]
    var sessions: [String: Session] = [:]
    private var sessionIDByToken: [String: String] = [:]
    /// Tokens of sessions ended on the project's side (backend revocation, ban,
    /// deletion): answered `session_not_found` (404) rather than 401.
    private var endedByProject: Set<String> = []
    var otps: [String: OneTimeCode] = [:]
    /// The last one-time passcode a send call "delivered", by channel and destination.
    var sentOTPs: [String: (methodID: String, code: String)] = [:]
    /// When codes were sent to each destination, for the send rate limit.
    var otpSendTimes: [String: [Date]] = [:]
    /// Discovery magic links: token → the address, expiry and PKCE challenge.
    var discoveryLinks: [String: DiscoveryLink] = [:]
    private var magicLinks: [String: MagicLink] = [:]
    /// Intermediate sessions by token (B2B: MFA pending, or discovery).
    var intermediates: [String: IntermediateSession] = [:]
    /// The last SMS one-time passcode sent to each member.
    var smsCodes: [String: OneTimeCode] = [:]
    /// B2B email magic links: token → member.
    var b2bMagicLinks: [String: OneTimeCode] = [:]
    /// The PKCE challenges B2B links were sent with, by token.
    var b2bMagicLinkChallenges: [String: String] = [:]
    /// The last link "emailed" by a send call, by email (B2B: organization ID + email).
    var sentMagicLinks: [String: String] = [:]
    /// OAuth starts waiting for the provider's consent, by attempt ID.
    var oauthAttempts: [String: OAuthAttempt] = [:]
    /// OAuth tokens the redirect carried, waiting for `oauth/authenticate`.
    var oauthTokens: [String: OAuthToken] = [:]
    let clock: EmulatorClock

    init(seed: StytchSeed, clock: EmulatorClock) throws {
        self.clock = clock
        let now = clock.now
        for user in seed.users {
            users[user.userID] = User(
                userID: user.userID, emailID: "email-test-" + (try OpaqueToken.uuid()), email: user.email.lowercased(),
                password: user.password, firstName: user.firstName ?? "", lastName: user.lastName ?? "", createdAt: now)
        }
        for organization in seed.organizations {
            organizations[organization.organizationID] = Organization(
                organizationID: organization.organizationID, slug: organization.slug,
                name: organization.name, createdAt: now)
            for member in organization.members {
                var stored = Member(
                    memberID: member.memberID, organizationID: organization.organizationID,
                    emailID: "email-test-" + (try OpaqueToken.uuid()), email: member.email.lowercased(),
                    password: member.password, name: member.name ?? "", mfaRequired: member.mfaRequired ?? false,
                    createdAt: now)
                try Self.enrollMFA(&stored, seed: member)
                members[member.memberID] = stored
            }
        }
    }

    // MARK: Signing in

    func passwordUser(email: String, password: String) throws(StytchError) -> User {
        guard let user = users.values.first(where: { $0.email == email.lowercased() }), !user.banned,
            constantTimeEquals(user.password, password)
        else { throw .unauthorized("The email or password is incorrect.") }
        return user
    }

    func passwordMember(organizationID: String, email: String, password: String) throws(StytchError) -> Member {
        guard organizations[organizationID] != nil else { throw .organizationNotFound }
        guard let member = members.values.first(where: { $0.organizationID == organizationID && $0.email == email.lowercased() }),
            !member.banned, constantTimeEquals(member.password, password)
        else { throw .unauthorized("The email or password is incorrect.") }
        return member
    }

    /// The live (not banned) user with this email address, for a provider's consent.
    func user(email: String) -> User? {
        users.values.first { $0.email == email.lowercased() && !$0.banned }
    }

    /// The organization with this ID, else the one with this slug.
    func organization(id: String?, slug: String?) -> Organization? {
        if let id { return organizations[id] }
        guard let slug else { return nil }
        return organizations.values.first { $0.slug == slug }
    }

    /// The live user with this ID.
    func user(id: String) -> User? {
        users[id].flatMap { $0.banned ? nil : $0 }
    }

    /// Redeems a one-time passcode: the user, and how the code was delivered.
    func redeemOTP(methodID: String, code: String) throws(StytchError) -> (user: User, delivery: String) {
        guard let otp = otps[methodID], constantTimeEquals(otp.code, code) else { throw .otpNotFound }
        otps[methodID] = nil
        guard otp.expiresAt > clock.now, let user = users[otp.userID], !user.banned else { throw .otpNotFound }
        return (user, otp.delivery)
    }

    /// Redeems a consumer link; one sent with a PKCE challenge needs the verifier that
    /// hashes to it (checked before the link is used up, so a retry with it works).
    func redeemMagicLink(_ token: String, codeVerifier: String?) throws(StytchError) -> User {
        if let challenge = magicLinks[token]?.codeChallenge {
            guard let codeVerifier, PKCE.verifies(codeVerifier, challenge: challenge) else { throw .pkceMismatch }
        }
        guard let link = magicLinks.removeValue(forKey: token), link.expiresAt > clock.now, let user = users[link.userID], !user.banned else {
            throw .magicLinkNotFound
        }
        return user
    }

    /// Starts a session for a consumer user with `factor`, or adds the factor to the
    /// caller's current session when `existingToken` names a live one of the same user.
    func startSession(user: User, factor: Factor, minutes: Int, existingToken: String?, userAgent: String) throws -> Authenticated {
        let session = try open(
            subjectID: user.userID, organizationID: nil, factor: factor, minutes: minutes, existingToken: existingToken,
            userAgent: userAgent)
        return Authenticated(session: session, user: user)
    }

    /// Starts a member session, or, when the member needs MFA, an intermediate session.
    func startMemberSession(
        member: Member, factor: Factor, minutes: Int, existingToken: String?,
        userAgent: String
    ) throws -> MemberSignIn {
        guard let organization = organizations[member.organizationID] else { throw StytchError.organizationNotFound }
        if member.mfaRequired {
            let token = try OpaqueToken.make()
            intermediates[token] = IntermediateSession(
                email: member.email, memberID: member.memberID, organizationID: organization.organizationID,
                factors: [factor], expiresAt: clock.now.addingTimeInterval(Self.intermediateLifetime))
            return .mfaRequired(Intermediate(token: token, member: member, organization: organization))
        }
        let session = try open(
            subjectID: member.memberID, organizationID: member.organizationID, factor: factor, minutes: minutes,
            existingToken: existingToken, userAgent: userAgent)
        return .session(Authenticated(session: session, member: member, organization: organization))
    }

    func open(
        subjectID: String, organizationID: String?, factor: Factor, minutes: Int, existingToken: String?,
        userAgent: String
    ) throws -> Session {
        let now = clock.now
        if let existingToken, let id = sessionIDByToken[existingToken], var session = sessions[id],
            session.subjectID == subjectID, session.expiresAt > now
        {
            session.factors.removeAll { $0.type == factor.type && $0.deliveryMethod == factor.deliveryMethod }
            session.factors.append(factor)
            session.lastAccessedAt = now
            session.expiresAt = now.addingTimeInterval(Double(minutes) * 60)
            sessions[id] = session
            return session
        }
        let session = Session(
            sessionID: (organizationID == nil ? "session-test-" : "member-session-test-") + (try OpaqueToken.uuid()),
            token: try OpaqueToken.make(), subjectID: subjectID, organizationID: organizationID, startedAt: now,
            lastAccessedAt: now, expiresAt: now.addingTimeInterval(Double(minutes) * 60), factors: [factor],
            userAgent: userAgent)
        sessions[session.sessionID] = session
        sessionIDByToken[session.token] = session.sessionID
        return session
    }

    // MARK: Sessions

    /// Checks the session behind `token` (consumer or B2B, as `b2b` says); extends it to
    /// `minutes` from now only when `minutes` is given.
    func authenticate(token: String, b2b: Bool, minutes: Int?) throws(StytchError) -> Authenticated {
        let now = clock.now
        guard let id = sessionIDByToken[token], var session = sessions[id], (session.organizationID != nil) == b2b else {
            throw endedByProject.contains(token) ? .sessionNotFound : .unauthorized("The session could not be found.")
        }
        guard session.expiresAt > now else { throw .unauthorized("The session has expired.") }
        session.lastAccessedAt = now
        if let minutes { session.expiresAt = now.addingTimeInterval(Double(minutes) * 60) }
        sessions[id] = session
        if let organizationID = session.organizationID {
            guard let member = members[session.subjectID], !member.banned, let organization = organizations[organizationID] else {
                throw .unauthorized("The session could not be found.")
            }
            return Authenticated(session: session, member: member, organization: organization)
        }
        guard let user = users[session.subjectID], !user.banned else { throw .unauthorized("The session could not be found.") }
        return Authenticated(session: session, user: user)
    }

    /// Whether the session with this ID is live for an app request: it exists, has not
    /// expired, is of the kind asked (consumer or B2B), and its user or member is
    /// neither banned nor deleted. Does not touch `last_accessed_at`.
    func isLive(sessionID: String, b2b: Bool) -> Bool {
        guard let session = sessions[sessionID], (session.organizationID != nil) == b2b, session.expiresAt > clock.now else { return false }
        if b2b { return members[session.subjectID].map { !$0.banned } ?? false }
        return users[session.subjectID].map { !$0.banned } ?? false
    }

    /// Revokes the session behind `token`.
    func revoke(token: String, b2b: Bool) throws(StytchError) {
        if endedByProject.contains(token) { throw .sessionNotFound }
        guard let id = sessionIDByToken[token], let session = sessions[id], (session.organizationID != nil) == b2b,
            session.expiresAt > clock.now
        else { throw .unauthorized("The session could not be found.") }
        remove(sessionID: id)
    }

    /// Removes a session; `byProject`: ended on the project's side, so its token is
    /// answered `session_not_found` from now on.
    private func remove(sessionID: String, byProject: Bool = false) {
        guard let session = sessions.removeValue(forKey: sessionID) else { return }
        sessionIDByToken[session.token] = nil
        if byProject { endedByProject.insert(session.token) }
    }

    // MARK: Control

    /// Issues an email OTP for the user with this email: (method_id, code).
    func issueOTP(email: String, lifetime: TimeInterval = 600) throws -> (methodID: String, code: String)? {
        guard let user = users.values.first(where: { $0.email == email.lowercased() }) else { return nil }
        let methodID = "email-test-" + (try OpaqueToken.uuid())
        let code = try OpaqueToken.digits(6)
        otps[methodID] = OneTimeCode(code: code, userID: user.userID, expiresAt: clock.now.addingTimeInterval(lifetime))
        return (methodID, code)
    }

    /// Issues a magic-link token for the user with this email, bound to `codeChallenge`
    /// when the send carried one.
    func issueMagicLink(email: String, lifetime: TimeInterval = 3600, codeChallenge: String? = nil) throws -> String? {
        guard let user = users.values.first(where: { $0.email == email.lowercased() }) else { return nil }
        let token = try OpaqueToken.make()
        magicLinks[token] = MagicLink(userID: user.userID, expiresAt: clock.now.addingTimeInterval(lifetime), codeChallenge: codeChallenge)
        return token
    }

    /// The last link sent to `key` (an email, or organization ID + " " + email for B2B).
    func sentMagicLink(_ key: String) -> String? { sentMagicLinks[key] }

    /// `magic_links/email/login_or_create`: "emails" a link (kept for the control API),
    /// creating the user on first use as Stytch does. Returns the user and whether it is new.
    func sendMagicLink(email: String, lifetime: TimeInterval, codeChallenge: String?) throws -> (User, created: Bool) {
        var created = false
        if !users.values.contains(where: { $0.email == email.lowercased() }) {
            try createUser(StytchSeed.User(userID: "user-test-" + (try OpaqueToken.uuid()), email: email, password: try OpaqueToken.make()))
            created = true
        }
        guard let token = try issueMagicLink(email: email, lifetime: lifetime, codeChallenge: codeChallenge),
            let user = users.values.first(where: { $0.email == email.lowercased() })
        else { throw StytchError.badRequest("email is not valid.") }
        sentMagicLinks[email.lowercased()] = token
        return (user, created)
    }

    func createUser(_ seed: StytchSeed.User) throws {
        users[seed.userID] = User(
            userID: seed.userID, emailID: "email-test-" + (try OpaqueToken.uuid()), email: seed.email.lowercased(),
            password: seed.password, firstName: seed.firstName ?? "", lastName: seed.lastName ?? "", createdAt: clock.now)
    }

    /// Bans (or unbans) a user or member: a banned one cannot sign in, and their sessions end.
    func setBanned(_ id: String, _ banned: Bool) -> Bool {
        if users[id] != nil { users[id]?.banned = banned } else if members[id] != nil { members[id]?.banned = banned } else { return false }
        if banned { revokeSessions(of: id) }
        return true
    }

    /// Deletes a user or member and their sessions.
    func delete(_ id: String) -> Bool {
        guard users.removeValue(forKey: id) != nil || members.removeValue(forKey: id) != nil else { return false }
        revokeSessions(of: id)
        return true
    }

    /// Ends the sessions of a user or member now; returns how many.
    @discardableResult
    func revokeSessions(of id: String) -> Int {
        let ids = sessions.values.filter { $0.subjectID == id }.map(\.sessionID)
        for sessionID in ids { remove(sessionID: sessionID, byProject: true) }
        return ids.count
    }

    /// Makes the sessions of a user or member (or the one with this session ID) expire now.
    func expireSessions(of id: String) -> Int {
        let now = clock.now
        let ids = sessions.values.filter { $0.subjectID == id || $0.sessionID == id }.map(\.sessionID)
        for sessionID in ids { sessions[sessionID]?.expiresAt = now }
        return ids.count
    }

    /// Revokes one session by ID.
    func revokeSession(id: String) -> Bool {
        guard sessions[id] != nil else { return false }
        remove(sessionID: id, byProject: true)
        return true
    }
}

/// Compares secrets without an early exit on the first difference.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for index in 0..<max(x.count, y.count) {
        difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
    }
    return difference == 0
}
