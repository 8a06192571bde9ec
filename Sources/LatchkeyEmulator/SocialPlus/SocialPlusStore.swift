import Foundation

/// The state of an emulated social.plus network: users (created on first login, as the
/// service does), access tokens and server-minted auth tokens.
actor SocialPlusStore {
    struct User: Sendable {
        var userID: String
        var displayName: String
        var isGlobalBanned = false
        var isDeleted = false
        var createdAt: Date
        var updatedAt: Date
    }

    struct Session: Sendable {
        var accessToken: String
        var userID: String
        var issuedAt: Date
        var expiresAt: Date
    }

    private struct AuthToken {
        var userID: String
        var expiresAt: Date
    }

    private var users: [String: User] = [:]
    private var sessions: [String: Session] = [:]
    private var authTokens: [String: AuthToken] = [:]
    /// Access-token-login JWTs revoked by a secure logout (the JWT itself is stateless).
    private var revokedAccessTokens: Set<String> = []
    private let clock: EmulatorClock
    private let accessLifetime: TimeInterval
    private let authTokenLifetime: TimeInterval
    private let reportsFlagsAtLogin: Bool

    init(seed: SocialPlusSeed, clock: EmulatorClock) {
        self.clock = clock
        accessLifetime = TimeInterval(seed.accessTokenLifetime ?? 2_592_000)
        authTokenLifetime = TimeInterval(seed.authTokenLifetime ?? 600)
        reportsFlagsAtLogin = seed.reportsFlagsAtLogin ?? false
        let now = clock.now
        for user in seed.users {
            users[user.userID] = User(userID: user.userID, displayName: user.displayName ?? user.userID, createdAt: now, updatedAt: now)
        }
    }

    /// Mints a server-side auth token for `userID` (about 10 minutes).
    func mintAuthToken(userID: String) throws -> String {
        let token = try OpaqueToken.make()
        authTokens[token] = AuthToken(userID: userID, expiresAt: clock.now.addingTimeInterval(authTokenLifetime))
        return token
    }

    /// Whether `token` is a live auth token minted for `userID`; it is spent by the check.
    func redeemAuthToken(_ token: String, userID: String) -> Bool? {
        guard let record = authTokens[token] else { return nil }
        authTokens[token] = nil
        return record.userID == userID && record.expiresAt > clock.now
    }

    /// Logs `userID` in (creating the user on first login); banned and deleted users are
    /// refused, or answered with their flags set when the seed says so.
    func login(userID: String, displayName: String?) throws -> (Session, User) {
        let now = clock.now
        var user = users[userID] ?? User(userID: userID, displayName: displayName ?? userID, createdAt: now, updatedAt: now)
        if !reportsFlagsAtLogin {
            guard !user.isDeleted else { throw SocialPlusError.unauthorized("The user has been deleted.") }
            guard !user.isGlobalBanned else { throw SocialPlusError.globalBan }
        }
        if let displayName, displayName != user.displayName {
            user.displayName = displayName
            user.updatedAt = now
        }
        users[userID] = user
        let session = Session(
            accessToken: try OpaqueToken.make(bytes: 48), userID: userID, issuedAt: now,
            expiresAt: now.addingTimeInterval(accessLifetime))
        sessions[session.accessToken] = session
        return (session, user)
    }

    /// The live session and user behind a bearer token; deleted users are unauthorized,
    /// banned ones get 400312.
    func caller(accessToken: String) throws(SocialPlusError) -> (Session, User) {
        guard let session = sessions[accessToken], session.expiresAt > clock.now, let user = users[session.userID] else {
            throw .unauthorized()
        }
        guard !user.isDeleted else { throw .unauthorized("The user has been deleted.") }
        guard !user.isGlobalBanned else { throw .globalBan }
        return (session, user)
    }

    func logout(accessToken: String) { sessions[accessToken] = nil }

    /// Whether `accessToken` names a session this store issued (else it may be an
    /// access-token-login JWT).
    func isSessionToken(_ accessToken: String) -> Bool { sessions[accessToken] != nil }

    /// The user behind a verified access-token-login JWT, created on first use as a login
    /// creates it; revoked tokens and deleted users are unauthorized, banned ones get 400312.
    func caller(jwt: String, userID: String) throws(SocialPlusError) -> User {
        guard !revokedAccessTokens.contains(jwt) else { throw .unauthorized() }
        let now = clock.now
        let user = users[userID] ?? User(userID: userID, displayName: userID, createdAt: now, updatedAt: now)
        users[userID] = user
        guard !user.isDeleted else { throw .unauthorized("The user has been deleted.") }
        guard !user.isGlobalBanned else { throw .globalBan }
        return user
    }

    /// Ends an access-token-login JWT's use (secure logout).
    func revoke(jwt: String) { revokedAccessTokens.insert(jwt) }

    func user(_ userID: String) -> User? { users[userID] }

    // MARK: Control

    func createUser(_ seed: SocialPlusSeed.User) {
        let now = clock.now
        users[seed.userID] = User(userID: seed.userID, displayName: seed.displayName ?? seed.userID, createdAt: now, updatedAt: now)
    }

    func setBanned(_ userID: String, _ banned: Bool) -> Bool {
        guard users[userID] != nil else { return false }
        users[userID]?.isGlobalBanned = banned
        users[userID]?.updatedAt = clock.now
        return true
    }

    /// Soft-deletes the user, as social.plus does: the record stays with `isDeleted`.
    func delete(_ userID: String) -> Bool {
        guard users[userID] != nil else { return false }
        users[userID]?.isDeleted = true
        users[userID]?.updatedAt = clock.now
        return true
    }

    func expireSessions(of userID: String) -> Int {
        let now = clock.now
        let tokens = sessions.values.filter { $0.userID == userID }.map(\.accessToken)
        for token in tokens { sessions[token]?.expiresAt = now }
        return tokens.count
    }

    func revokeSessions(of userID: String) -> Int {
        let before = sessions.count
        sessions = sessions.filter { $0.value.userID != userID }
        return before - sessions.count
    }
}
