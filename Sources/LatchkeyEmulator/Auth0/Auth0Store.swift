import Foundation
internal import LatchkeyCrypto

/// The state of an emulated Auth0 tenant: users, access and refresh tokens (with their
/// rotation families), authorization codes, device authorizations and MFA tokens.
actor Auth0Store {
    struct User: Sendable {
        var userID: String
        var email: String
        var password: String
        var name: String
        var mfaRequired: Bool
        var mfaOTP: String
        var recoveryCode: String?
        var blocked = false
        /// The next refresh grant answers `mfa_required` (a step-up).
        var mfaOnRefresh = false
        /// A post-login Action denies this user: every token grant answers `access_denied`.
        var accessDenied = false
        var updatedAt: Date
    }

    /// What a set of tokens was granted: to whom, which scope and audience, when the
    /// user authenticated, and the nonce to echo.
    struct Grant: Sendable {
        var userID: String
        var scope: String
        var audience: String?
        var authTime: Date
        var nonce: String?
        /// The organization asked at `/authorize` (an `org_` ID or a name).
        var organization: String?

        var scopes: Set<Substring> { Set(scope.split(separator: " ")) }
    }

    /// Tokens just issued (the ID token and a JWT access token are signed by the caller).
    struct Issued: Sendable {
        var grant: Grant
        var user: User
        var accessToken: String
        var refreshToken: String?
        /// Issued by a refresh grant: the session's expiry is computed afresh.
        var refreshed = false
    }

    private struct AccessToken {
        var userID: String
        var scope: String
        var expiresAt: Date
    }

    private struct AuthorizationCode {
        var grant: Grant
        var redirectURI: String
        var challenge: String?
        var expiresAt: Date
    }

    struct DeviceAuthorization: Sendable {
        enum State: Sendable {
            case pending
            case approved(String)
            case denied
        }
        var deviceCode: String
        var userCode: String
        var scope: String
        var audience: String?
        /// The organization the device asked to sign in to: its ID tokens name it.
        var organization: String?
        var expiresAt: Date
        var interval: Int
        var lastPoll: Date?
        var polls = 0
        var state = State.pending
    }

    private var users: [String: User] = [:]
    private var refreshTokens = Auth0RefreshFamilies()
    private var accessTokens: [String: AccessToken] = [:]
    private var codes: [String: AuthorizationCode] = [:]
    private var devices: [String: DeviceAuthorization] = [:]
    private var deviceCodeByUserCode: [String: String] = [:]
    private var mfaTokens: [String: PendingMFA] = [:]
    /// The Auth0 sessions browsers hold (the `auth0` cookie): whose, since when.
    private var browserSessions: [String: (userID: String, authTime: Date)] = [:]

    /// An `mfa_token` waiting for its second factor: whose, for which grant, until when.
    private struct PendingMFA {
        var grant: Grant
        var expiresAt: Date
    }
    private let clock: EmulatorClock
    let settings: Auth0Seed
    private var userInfoLimit: Auth0RateLimit

    var rotates: Bool { settings.rotateRefreshTokens ?? true }
    var accessLifetime: TimeInterval { TimeInterval(settings.accessTokenLifetime ?? 86_400) }
    private var refreshLifetime: TimeInterval { TimeInterval(settings.refreshTokenLifetime ?? 2_592_000) }
    private var reuseInterval: TimeInterval { TimeInterval(max(0, settings.refreshTokenReuseInterval ?? 0)) }

    init(seed: Auth0Seed, clock: EmulatorClock) {
        self.clock = clock
        settings = seed
        userInfoLimit = Auth0RateLimit(burst: seed.userInfoBurst ?? 10, perMinute: seed.userInfoPerMinute ?? 5)
        for user in seed.users { users[user.userID] = Self.user(user, now: clock.now) }
    }

    private static func user(_ seed: Auth0Seed.User, now: Date) -> User {
        User(
            userID: seed.userID, email: seed.email.lowercased(), password: seed.password, name: seed.name ?? seed.email,
            mfaRequired: seed.mfaRequired ?? false, mfaOTP: seed.mfaOTP ?? Auth0Seed.User.defaultOTP, recoveryCode: seed.recoveryCode,
            updatedAt: now)
    }

    // MARK: Signing in

    /// Checks a username (email) and password; MFA users get `mfa_required` with an MFA
    /// token that carries `grant` to the second factor.
    func passwordLogin(username: String, password: String, grant: (String) -> Grant) throws -> Grant {
        guard let user = users.values.first(where: { $0.email == username.lowercased() }), constantTimeEquals(user.password, password) else {
            throw Auth0Error.wrongCredentials
        }
        guard !user.blocked else { throw Auth0Error.blocked }
        if user.mfaRequired { throw try mfaRequired(grant(user.userID)) }
        return grant(user.userID)
    }

    /// Issues an `mfa_token` (10 minutes) for `grant` and the error that carries it.
    private func mfaRequired(_ grant: Grant) throws -> Auth0Error {
        let token = try OpaqueToken.make()
        mfaTokens[token] = PendingMFA(grant: grant, expiresAt: clock.now.addingTimeInterval(600))
        return Auth0Error.mfaRequired(token: token)
    }

    /// The MFA grants: `otp` (`mfa-otp`) or `recoveryCode` (`mfa-recovery-code`, spent once)
    /// with a live `mfa_token`. A wrong code keeps the token for another try. A recovery
    /// code is replaced by a new one, which the answer carries (`recovery_code`) for the
    /// app to show the user.
    func finishMFA(token: String, otp: String?, recoveryCode: String?) throws -> (grant: Grant, newRecoveryCode: String?) {
        guard let pending = mfaTokens[token], pending.expiresAt > clock.now else {
            mfaTokens[token] = nil
            throw Auth0Error(status: 403, error: "invalid_grant", description: "Malformed mfa_token or mfa_token is expired.")
        }
        guard let user = users[pending.grant.userID], !user.blocked else { throw Auth0Error.blocked }
        var newRecoveryCode: String?
        if let otp {
            guard constantTimeEquals(user.mfaOTP, otp) else {
                throw Auth0Error(status: 403, error: "invalid_grant", description: "Invalid otp_code.")
            }
        } else {
            guard let expected = user.recoveryCode, let recoveryCode, constantTimeEquals(expected, recoveryCode) else {
                throw Auth0Error(status: 403, error: "invalid_grant", description: "MFA Authorization rejected.")
            }
            // Auth0's recovery codes: 24 characters, no separator.
            newRecoveryCode = try OpaqueToken.userCode(count: 24).replacingOccurrences(of: "-", with: "")
            users[user.userID]?.recoveryCode = newRecoveryCode
        }
        mfaTokens[token] = nil
        var grant = pending.grant
        grant.authTime = clock.now
        return (grant, newRecoveryCode)
    }

    /// Makes every token grant of the user answer `access_denied` (or stops it).
    func setAccessDenied(_ userID: String, _ denied: Bool) -> Bool {
        guard users[userID] != nil else { return false }
        users[userID]?.accessDenied = denied
        return true
    }

    /// Makes the user's next refresh answer `mfa_required` (a step-up), once.
    func requireMFAOnRefresh(_ userID: String) -> Bool {
        guard users[userID] != nil else { return false }
        users[userID]?.mfaOnRefresh = true
        return true
    }

    /// Issues an access token and, when the scope has `offline_access`, a refresh token
    /// starting a new family.
    func issue(_ grant: Grant) throws -> Issued {
        guard let user = users[grant.userID], !user.blocked else { throw Auth0Error.blocked }
        guard !user.accessDenied else { throw Auth0Error.deniedByAction }
        let now = clock.now
        let accessToken = try OpaqueToken.make()
        accessTokens[accessToken] = AccessToken(userID: user.userID, scope: grant.scope, expiresAt: now.addingTimeInterval(accessLifetime))
        var refreshToken: String?
        if grant.scopes.contains("offline_access") {
            let token = try OpaqueToken.make(bytes: 36)
            refreshTokens.start(token, family: try OpaqueToken.uuid(), grant: grant, expiresAt: now.addingTimeInterval(refreshLifetime))
            refreshToken = token
        }
        return Issued(grant: grant, user: user, accessToken: accessToken, refreshToken: refreshToken)
    }

    /// Records a JWT access token (signed by the caller) so `/userinfo` accepts it.
    func register(accessToken: String, for grant: Grant) {
        accessTokens[accessToken] = AccessToken(userID: grant.userID, scope: grant.scope, expiresAt: clock.now.addingTimeInterval(accessLifetime))
    }

    /// Redeems a refresh token, atomically: with rotation, the token is spent and a new
    /// one of the same family returned; a spent token presented again revokes the whole
    /// family (reuse detection) — unless it is the one the latest rotation spent and the
    /// reuse interval since that rotation has not passed (Auth0's overlap period), when
    /// it gets another new token. `scope` may narrow the grant.
    func refresh(_ token: String, scope: String?, audience: String?) throws -> Issued {
        func note(_ outcome: Auth0RefreshRecord.Outcome, issued: String? = nil) {
            refreshTokens.note(outcome, presented: token, issued: issued, at: clock.now)
        }
        guard let record = refreshTokens[token], !refreshTokens.isRevoked(record.familyID), record.expiresAt > clock.now else {
            note(.refused)
            throw Auth0Error.invalidRefreshToken
        }
        // A session with a fixed lifetime ends for good: its refresh tokens die with it.
        if let lifetime = settings.sessionLifetime, clock.now >= record.grant.authTime.addingTimeInterval(TimeInterval(lifetime)) {
            note(.refused)
            throw Auth0Error.invalidRefreshToken
        }
        if record.used, !refreshTokens.isInReuseInterval(token, family: record.familyID, interval: reuseInterval, now: clock.now) {
            refreshTokens.revoke(family: record.familyID, .reuse(token: token, generation: refreshTokens.generation(of: token)?.generation ?? 0))
            note(.reuseRevokedFamily)
            throw Auth0Error.invalidRefreshToken
        }
        guard let user = users[record.grant.userID], !user.blocked else {
            note(.refused)
            throw Auth0Error.invalidRefreshToken
        }
        if user.mfaOnRefresh {
            users[user.userID]?.mfaOnRefresh = false
            var stepUp = record.grant
            stepUp.nonce = nil
            note(.mfaRequired)
            throw try mfaRequired(stepUp)
        }
        guard !user.accessDenied else {
            note(.refused)
            throw Auth0Error.deniedByAction
        }
        var grant = record.grant
        grant.nonce = nil
        if let audience { grant.audience = audience }
        if let scope {
            // The OpenID scopes never exceed the login's. For another API (a multi-resource
            // refresh token) its own permissions are granted; for the login's, none beyond it.
            let requested = Set(scope.split(separator: " "))
            let otherAPI = audience != nil && audience != record.grant.audience
            let beyond = requested.subtracting(record.grant.scopes)
            guard otherAPI ? beyond.isDisjoint(with: Self.openIDScopes) : beyond.isEmpty else {
                note(.refused)
                throw Auth0Error(status: 403, error: "access_denied", description: "The requested scope exceeds the original grant.")
            }
            grant.scope = scope
        }
        let now = clock.now
        let accessToken = try OpaqueToken.make()
        accessTokens[accessToken] = AccessToken(userID: user.userID, scope: grant.scope, expiresAt: now.addingTimeInterval(accessLifetime))
        var newRefreshToken: String?
        if rotates {
            let next = try OpaqueToken.make(bytes: 36)
            refreshTokens.rotate(token, to: next, at: now)
            newRefreshToken = next
        }
        note(.rotated, issued: newRefreshToken)
        return Issued(grant: grant, user: user, accessToken: accessToken, refreshToken: newRefreshToken, refreshed: true)
    }

    /// The scopes of OpenID Connect itself, as opposed to an API's permissions.
    static let openIDScopes: Set<Substring> = ["openid", "profile", "email", "offline_access", "address", "phone"]

    /// What the tenant knows of a refresh token (``Auth0RefreshFamilies/status(of:)``).
    func status(ofRefreshToken token: String) -> Auth0RefreshTokenStatus { refreshTokens.status(of: token) }

    /// The refresh grants applied since the last call, oldest first; the log starts again.
    func takeRefreshLog() -> [Auth0RefreshRecord] { refreshTokens.takeLog() }

    /// `/oauth/revoke`: a refresh token revokes its family; anything else is ignored.
    func revoke(_ token: String) {
        if let record = refreshTokens[token] { refreshTokens.revoke(family: record.familyID, .revoke) }
    }

    /// The user an access token belongs to, if it is live.
    func userInfo(accessToken: String) -> (User, scope: String)? {
        guard let record = accessTokens[accessToken], record.expiresAt > clock.now, let user = users[record.userID], !user.blocked else {
            return nil
        }
        return (user, record.scope)
    }

    /// Counts one `/userinfo` request against the user's rate limit (burst and refill
    /// from the seed, on the emulator clock): whether it may be answered, and the
    /// `x-ratelimit-*` headers either way.
    func takeUserInfoRequest(userID: String) -> Auth0RateLimit.Decision {
        userInfoLimit.take(userID, now: clock.now)
    }

    // MARK: Authorization code with PKCE

    /// The user `/authorize` signs in: the one with `loginHint` as email, else the first
    /// seeded user who needs no MFA.
    func authorizingUser(loginHint: String?) -> User? {
        if let loginHint { return users.values.first { $0.email == loginHint.lowercased() && !$0.blocked } }
        return settings.users.lazy.compactMap { self.users[$0.userID] }.first { !$0.mfaRequired && !$0.blocked }
    }

    /// The user with this email and password, for the login page; `nil` when they do not match.
    func checkPassword(username: String, password: String) -> User? {
        guard let user = users.values.first(where: { $0.email == username.lowercased() }), constantTimeEquals(user.password, password),
            !user.blocked
        else { return nil }
        return user
    }

    /// Starts the Auth0 session a browser keeps after signing in on the login page; the
    /// answer is its cookie value.
    func startBrowserSession(userID: String) throws -> String {
        let id = try OpaqueToken.make()
        browserSessions[id] = (userID, clock.now)
        return id
    }

    /// The user a browser's session cookie signs in silently, and when they authenticated.
    func browserSessionUser(_ id: String) -> (user: User, authTime: Date)? {
        guard let session = browserSessions[id], let user = users[session.userID], !user.blocked else { return nil }
        return (user, session.authTime)
    }

    /// `/v2/logout`: the browser's session ends.
    func endBrowserSession(_ id: String) {
        browserSessions[id] = nil
    }

    func createCode(grant: Grant, redirectURI: String, challenge: String?) throws -> String {
        let code = try OpaqueToken.make()
        codes[code] = AuthorizationCode(grant: grant, redirectURI: redirectURI, challenge: challenge, expiresAt: clock.now.addingTimeInterval(600))
        return code
    }

    /// Redeems a code once; with a challenge, `verifier` must hash to it (S256).
    func redeemCode(_ code: String, verifier: String?, redirectURI: String?) throws -> Grant {
        guard let record = codes.removeValue(forKey: code), record.expiresAt > clock.now else { throw Auth0Error.invalidCode }
        guard redirectURI == nil || redirectURI == record.redirectURI else {
            throw Auth0Error(status: 403, error: "invalid_grant", description: "The redirect_uri does not match the authorization request.")
        }
        if let challenge = record.challenge {
            guard let verifier, PKCE.verifies(verifier, challenge: challenge) else { throw Auth0Error.invalidVerifier }
        }
        return record.grant
    }

    // MARK: Device flow

    func startDevice(scope: String, audience: String?, organization: String?) throws -> DeviceAuthorization {
        let device = DeviceAuthorization(
            deviceCode: try OpaqueToken.make(), userCode: try OpaqueToken.userCode(), scope: scope,
            audience: audience, organization: organization, expiresAt: clock.now.addingTimeInterval(900), interval: 5)
        devices[device.deviceCode] = device
        deviceCodeByUserCode[device.userCode] = device.deviceCode
        return device
    }

    /// One poll of the token endpoint with a device code: pending, slow down (polled
    /// sooner than `interval` after the previous poll), expired, denied, or approved
    /// (explicitly, or automatically after the configured number of pending answers).
    func pollDevice(_ deviceCode: String) throws -> Grant {
        guard var device = devices[deviceCode] else { throw Auth0Error.invalidDeviceCode }
        let now = clock.now
        guard now < device.expiresAt else {
            forget(device)
            throw Auth0Error.expiredToken
        }
        if let last = device.lastPoll, now.timeIntervalSince(last) < Double(device.interval) {
            device.interval += 5
            device.lastPoll = now
            devices[deviceCode] = device
            throw Auth0Error.slowDown
        }
        device.lastPoll = now
        device.polls += 1
        let automatic = settings.deviceApprovalPolls ?? 2
        if case .pending = device.state, automatic > 0, device.polls > automatic, let user = authorizingUser(loginHint: nil) {
            device.state = .approved(user.userID)
        }
        devices[deviceCode] = device
        switch device.state {
        case .pending:
            throw Auth0Error.pending
        case .denied:
            forget(device)
            throw Auth0Error.accessDenied
        case .approved(let userID):
            forget(device)
            return Grant(userID: userID, scope: device.scope, audience: device.audience, authTime: now, organization: device.organization)
        }
    }

    private func forget(_ device: DeviceAuthorization) {
        devices[device.deviceCode] = nil
        deviceCodeByUserCode[device.userCode] = nil
    }

    /// Approves (with a user) or denies a pending device authorization by its user code.
    func decideDevice(userCode: String, approveAs userID: String?) -> Bool {
        guard let deviceCode = deviceCodeByUserCode[userCode.uppercased()], var device = devices[deviceCode] else { return false }
        if let userID {
            guard users[userID] != nil else { return false }
            device.state = .approved(userID)
        } else {
            device.state = .denied
        }
        devices[deviceCode] = device
        return true
    }

    // MARK: Control

    func createUser(_ seed: Auth0Seed.User) {
        users[seed.userID] = Self.user(seed, now: clock.now)
    }

    func setBlocked(_ userID: String, _ blocked: Bool) -> Bool {
        guard users[userID] != nil else { return false }
        users[userID]?.blocked = blocked
        return true
    }

    func delete(_ userID: String) -> Bool {
        guard users.removeValue(forKey: userID) != nil else { return false }
        _ = revokeSessions(of: userID, reason: .userDeleted)
        return true
    }

    /// Makes the user's access tokens expire now (refresh tokens keep working).
    func expireSessions(of userID: String) -> Int {
        let now = clock.now
        var count = 0
        for (token, record) in accessTokens where record.userID == userID {
            accessTokens[token]?.expiresAt = now
            count += 1
        }
        return count
    }

    /// Revokes every refresh token family and access token of the user.
    func revokeSessions(of userID: String, reason: Auth0FamilyRevocation = .revokeSessions) -> Int {
        let families = refreshTokens.families(of: userID)
        for family in families { refreshTokens.revoke(family: family, reason) }
        accessTokens = accessTokens.filter { $0.value.userID != userID }
        return families.count
    }

    func user(_ userID: String) -> User? { users[userID] }
}
