public import Foundation
import LatchkeyJWT

/// The emulator's control handle: users, sessions, keys, the clock, faults and the
/// request log. Every call is also reachable over HTTP under `/__emulator/` on any
/// provider's port. Safe to use from any task.
public struct EmulatorControl: Sendable {
    let stytch: StytchAPI?
    let auth0: Auth0API?
    let socialPlus: SocialPlusAPI?
    let faults: FaultInjector
    let log: RequestLog

    /// The emulator's clock.
    public let clock: EmulatorClock

    // MARK: Clock

    /// The emulator's current time.
    public var now: Date { clock.now }

    /// Moves the emulator clock forward, so sessions, tokens and codes reach their expiry
    /// without waiting.
    public func advanceClock(by seconds: TimeInterval) { clock.advance(by: seconds) }

    // MARK: Users

    /// Adds a Stytch consumer user.
    public func createStytchUser(_ user: StytchSeed.User) async throws {
        try await stytchAPI().store.createUser(user)
    }

    /// Adds an Auth0 database user.
    public func createAuth0User(_ user: Auth0Seed.User) async throws {
        try await auth0API().store.createUser(user)
    }

    /// Adds a social.plus user.
    public func createSocialPlusUser(_ user: SocialPlusSeed.User) async throws {
        try await socialPlusAPI().store.createUser(user)
    }

    /// Bans a user: Stytch and Auth0 refuse their sign-ins (Stytch also ends their
    /// sessions); social.plus answers `400312` to their logins and calls.
    public func banUser(_ userID: String, provider: EmulatorProvider) async throws {
        try await setBanned(userID, provider: provider, true)
    }

    /// Lifts a ban.
    public func unbanUser(_ userID: String, provider: EmulatorProvider) async throws {
        try await setBanned(userID, provider: provider, false)
    }

    private func setBanned(_ userID: String, provider: EmulatorProvider, _ banned: Bool) async throws {
        let found: Bool
        switch provider {
        case .stytch: found = try await stytchAPI().store.setBanned(userID, banned)
        case .auth0: found = try await auth0API().store.setBlocked(userID, banned)
        case .socialPlus: found = try await socialPlusAPI().store.setBanned(userID, banned)
        }
        guard found else { throw EmulatorError.unknownUser(userID) }
    }

    /// Deletes a user and their sessions (social.plus keeps the record with `isDeleted`).
    public func deleteUser(_ userID: String, provider: EmulatorProvider) async throws {
        let found: Bool
        switch provider {
        case .stytch: found = try await stytchAPI().store.delete(userID)
        case .auth0: found = try await auth0API().store.delete(userID)
        case .socialPlus: found = try await socialPlusAPI().store.delete(userID)
        }
        guard found else { throw EmulatorError.unknownUser(userID) }
    }

    // MARK: Sessions

    /// Makes a user's sessions expire now (Stytch: sessions, also by session ID; Auth0:
    /// access tokens; social.plus: access tokens). Returns how many.
    @discardableResult
    public func expireSessions(of id: String, provider: EmulatorProvider) async throws -> Int {
        switch provider {
        case .stytch: try await stytchAPI().store.expireSessions(of: id)
        case .auth0: try await auth0API().store.expireSessions(of: id)
        case .socialPlus: try await socialPlusAPI().store.expireSessions(of: id)
        }
    }

    /// Revokes a user's sessions (Auth0: every refresh-token family and access token).
    /// Returns how many.
    @discardableResult
    public func revokeSessions(of userID: String, provider: EmulatorProvider) async throws -> Int {
        switch provider {
        case .stytch: try await stytchAPI().store.revokeSessions(of: userID)
        case .auth0: try await auth0API().store.revokeSessions(of: userID)
        case .socialPlus: try await socialPlusAPI().store.revokeSessions(of: userID)
        }
    }

    /// Revokes one Stytch session by its ID.
    public func revokeStytchSession(id: String) async throws -> Bool {
        try await stytchAPI().store.revokeSession(id: id)
    }

    // MARK: Keys

    /// Replaces the provider's signing key (Stytch or Auth0) and returns the new `kid`;
    /// the newest `keepingPrevious` retired keys stay in the JWKS (the overlap).
    @discardableResult
    public func rotateSigningKeys(_ provider: EmulatorProvider, keepingPrevious: Int = 1) async throws -> String {
        try await keyRing(provider).rotate(keepingPrevious: keepingPrevious)
    }

    /// The `kid`s the provider publishes, the signing one first.
    public func signingKeyIDs(_ provider: EmulatorProvider) async throws -> [String] {
        try await keyRing(provider).keyIDs
    }

    private func keyRing(_ provider: EmulatorProvider) throws -> SigningKeyRing {
        switch provider {
        case .stytch: try stytchAPI().keys
        case .auth0: try auth0API().keys
        case .socialPlus: throw EmulatorError.invalidOptions("social.plus signs no tokens")
        }
    }

    // MARK: Provider-specific

    /// Issues a Stytch email OTP for the user with this email, as if it had been sent:
    /// the `method_id` and 6-digit code `otps/authenticate` accepts once, within 10 minutes.
    public func issueStytchOTP(email: String) async throws -> (methodID: String, code: String) {
        guard let otp = try await stytchAPI().store.issueOTP(email: email) else { throw EmulatorError.unknownUser(email) }
        return otp
    }

    /// The token of the last magic link a send call "emailed" to `email` (B2B: in
    /// `organizationID`), as the user would find it in the link.
    public func sentStytchMagicLink(email: String, organizationID: String? = nil) async throws -> String {
        let key = organizationID.map { $0 + " " + email.lowercased() } ?? email.lowercased()
        guard let token = try await stytchAPI().store.sentMagicLink(key) else { throw EmulatorError.unknownUser(email) }
        return token
    }

    /// The last one-time passcode an `otps/{sms,whatsapp,email}/login_or_create` call
    /// "delivered" to `destination` (a phone number, or an address with `channel`
    /// `email`), as the phone or inbox shows it: the `method_id` the send answered and the code.
    public func sentStytchOTP(to destination: String, channel: String = "sms") async throws -> (methodID: String, code: String) {
        guard let sent = try await stytchAPI().store.sentOTP(channel: channel, destination: destination) else {
            throw EmulatorError.unknownUser(destination)
        }
        return sent
    }

    /// The token of the last discovery magic link `b2b/magic_links/email/discovery/send`
    /// "emailed" to `email`, as the member would find it in the link.
    public func sentStytchDiscoveryMagicLink(email: String) async throws -> String {
        guard let token = try await stytchAPI().store.sentMagicLink("discovery " + email.lowercased()) else { throw EmulatorError.unknownUser(email) }
        return token
    }

    /// Issues a Stytch magic-link token for the user with this email (one use, 1 hour).
    public func issueStytchMagicLink(email: String) async throws -> String {
        guard let token = try await stytchAPI().store.issueMagicLink(email: email) else { throw EmulatorError.unknownUser(email) }
        return token
    }

    /// Issues a Stytch B2B email magic-link token for the member with this email in the
    /// organization (one use, 1 hour).
    public func issueStytchB2BMagicLink(email: String, organizationID: String) async throws -> String {
        guard let token = try await stytchAPI().store.issueB2BMagicLink(email: email, organizationID: organizationID) else {
            throw EmulatorError.unknownUser(email)
        }
        return token
    }

    /// Issues a Stytch B2B discovery intermediate session token for this email, as a
    /// discovery magic link authenticated elsewhere would (10 minutes).
    public func issueStytchDiscoverySession(email: String) async throws -> String {
        guard let token = try await stytchAPI().store.issueDiscoverySession(email: email) else { throw EmulatorError.unknownUser(email) }
        return token
    }

    /// The last SMS one-time passcode `b2b/otps/sms/send` sent to this member, as the phone shows it.
    public func stytchSMSCode(memberID: String) async throws -> String? {
        try await stytchAPI().store.lastSMSCode(memberID: memberID)
    }

    /// The member's current TOTP code (RFC 6238, HMAC-SHA-256, on the emulator clock).
    public func stytchTOTPCode(memberID: String) async throws -> String {
        guard let code = try await stytchAPI().store.totpCode(memberID: memberID) else { throw EmulatorError.unknownUser(memberID) }
        return code
    }

    /// The member's unused recovery codes.
    public func stytchRecoveryCodes(memberID: String) async throws -> [String] {
        guard let codes = try await stytchAPI().store.recoveryCodes(memberID: memberID) else { throw EmulatorError.unknownUser(memberID) }
        return codes
    }

    /// Approves a pending Auth0 device authorization as `userID` (default: the first
    /// seeded user without MFA).
    public func approveDevice(userCode: String, as userID: String? = nil) async throws {
        let api = try auth0API()
        var user = userID
        if user == nil { user = await api.store.authorizingUser(loginHint: nil)?.userID }
        guard let user, await api.store.decideDevice(userCode: userCode, approveAs: user) else { throw EmulatorError.unknownUserCode }
    }

    /// Makes the Auth0 user's next refresh grant answer `mfa_required` (a step-up),
    /// with an `mfa_token` the MFA grants accept.
    public func requireAuth0MFAOnNextRefresh(userID: String) async throws {
        guard try await auth0API().store.requireMFAOnRefresh(userID) else { throw EmulatorError.unknownUser(userID) }
    }

    /// Makes Auth0 refuse the user's token grants — refresh grants included — with 403
    /// `access_denied`, as a post-login Action calling `api.access.deny` does (or stops).
    public func denyAuth0Access(userID: String, _ denied: Bool = true) async throws {
        guard try await auth0API().store.setAccessDenied(userID, denied) else { throw EmulatorError.unknownUser(userID) }
    }

    /// What the Auth0 tenant knows of a refresh token: its family and generation, whether
    /// it is the family's newest, spent, or revoked, and why the family was revoked.
    public func auth0RefreshTokenStatus(_ refreshToken: String) async throws -> Auth0RefreshTokenStatus {
        try await auth0API().store.status(ofRefreshToken: refreshToken)
    }

    /// The refresh grants the Auth0 tenant applied since the last call (the latest
    /// 10,000), oldest first, each with its token's family and generation and what came
    /// of it; the log starts again. A delayed request is recorded when it is applied, even
    /// when its client has gone.
    public func takeAuth0RefreshLog() async throws -> [Auth0RefreshRecord] {
        try await auth0API().store.takeRefreshLog()
    }

    /// Switches Auth0's error answers to the legacy `{"code","description"}` shape (or back).
    public func setAuth0LegacyErrors(_ legacy: Bool) throws {
        try auth0API().errorShape.set(legacy: legacy)
    }

    /// Denies a pending Auth0 device authorization.
    public func denyDevice(userCode: String) async throws {
        guard try await auth0API().store.decideDevice(userCode: userCode, approveAs: nil) else { throw EmulatorError.unknownUserCode }
    }

    /// Mints a social.plus auth token for `userID`, as `POST /api/v4/authentication/token` does.
    public func mintSocialPlusAuthToken(userID: String) async throws -> String {
        try await socialPlusAPI().store.mintAuthToken(userID: userID)
    }

    /// Signs an access-token-login JWT for `userID` with the configured secret (HS256),
    /// as an app's backend would: `userId`, `iat`, `exp` on the emulator clock.
    public func signSocialPlusAccessToken(userID: String, lifetime: TimeInterval = 3600) throws -> String {
        let api = try socialPlusAPI()
        let now = Timestamp.seconds(clock.now)
        return try JWT.sign(
            ["userId": .string(userID), "sub": .string(userID), "iat": .number(now), "exp": .number(now + lifetime)],
            key: api.accessTokenKey)
    }

    // MARK: Faults

    /// Arms a fault.
    public func inject(_ fault: EmulatorFault) async { await faults.add(fault) }

    /// Disarms every fault (of one route, when given).
    public func clearFaults(route: EmulatorRoute? = nil) async { await faults.clear(route: route) }

    /// The faults still armed.
    public func pendingFaults() async -> [EmulatorFault] { await faults.pending }

    // MARK: Request log

    /// The logged requests, oldest first (the latest 10,000), optionally of one provider or route.
    public func requests(provider: EmulatorProvider? = nil, route: EmulatorRoute? = nil) async -> [EmulatorRequestRecord] {
        await log.records(provider: provider, route: route)
    }

    /// How many requests reached `route` (with this `grant_type`, when given), including
    /// those a fault hit.
    public func count(_ route: EmulatorRoute, grant: String? = nil) async -> Int {
        await log.count(route: route, grant: grant)
    }

    /// Request counts by route (`"auth0 POST /oauth/token #refresh_token"`).
    public func counts() async -> [String: Int] { await log.countsByRoute() }

    /// Clears the request log and counters.
    public func resetRequestLog() async { await log.reset() }

    // MARK: Providers

    func stytchAPI() throws -> StytchAPI {
        guard let stytch else { throw EmulatorError.providerNotRunning(.stytch) }
        return stytch
    }

    func auth0API() throws -> Auth0API {
        guard let auth0 else { throw EmulatorError.providerNotRunning(.auth0) }
        return auth0
    }

    func socialPlusAPI() throws -> SocialPlusAPI {
        guard let socialPlus else { throw EmulatorError.providerNotRunning(.socialPlus) }
        return socialPlus
    }
}
