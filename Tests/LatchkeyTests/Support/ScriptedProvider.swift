import Foundation
import Latchkey
import Synchronization

/// Credentials the scripted provider accepts.
struct ScriptedCredentials: LoginCredentials {
    var user: String
    var password: String
}

/// Credentials no provider accepts.
struct UnknownCredentials: LoginCredentials {}

/// A provider whose server lives in memory: it issues numbered tokens, keeps one valid
/// access token, counts every call, and fails on command. Its tokens look like
/// `access-<n>-<secret>` so tests can search logs for them.
final class ScriptedProvider: AuthProvider {
    /// What the next calls of one kind do.
    enum Behaviour: Sendable {
        case succeed
        case fail(AuthError)
        case failTransport
    }

    struct State {
        var issued = 0
        var validAccessToken: String?
        var validRefreshToken: String?
        var loginCalls = 0
        var validateCalls = 0
        var renewCalls = 0
        var revokeCalls = 0
        var loginDurations: [Duration?] = []
        var renewDurations: [Duration?] = []
        var login: [Behaviour] = []
        var validate: [Behaviour] = []
        var renew: [Behaviour] = []
        var revoke: [Behaviour] = []
        var defaultValidate: Behaviour = .succeed
        var defaultRenew: Behaviour = .succeed
        /// Renewals hand back the same token strings with a new lifetime (a provider that
        /// reissues an unchanged access token).
        var renewsToSameTokens = false
        var renewGate: (@Sendable () async -> Void)?
        var validateGate: (@Sendable () async -> Void)?
        var revokeGate: (@Sendable () async -> Void)?
        var loginPending: [UserAction?] = []
        var loginGate: (@Sendable () async -> Void)?
        var renewRequests: [RenewalRequest] = []
        var renewPreparations: [RenewalPreparation] = []
        var prepareHandler: (@Sendable (RenewalRequest) async throws -> RenewalPreparation)?
        /// The lifetime of renewed tokens, when it differs from the login's.
        var nextLifetime: TimeInterval?
        var sessionExpiresAt: Date
    }

    let identifier: String
    let extendsSessions: Bool
    let lifetime: TimeInterval
    let clock: any SessionClock
    let secret: String
    let state: Mutex<State>

    init(
        identifier: String = "scripted", extendsSessions: Bool = false, lifetime: TimeInterval = 3600,
        clock: any SessionClock, secret: String = "s3cr3t\(UInt32.random(in: .min ... .max))"
    ) {
        self.identifier = identifier
        self.extendsSessions = extendsSessions
        self.lifetime = lifetime
        self.clock = clock
        self.secret = secret
        SecretLedger.current?.issued(secret)
        state = Mutex(State(sessionExpiresAt: clock.now.addingTimeInterval(86_400)))
    }

    // MARK: Scripting

    func script(login: [Behaviour] = [], validate: [Behaviour] = [], renew: [Behaviour] = [], revoke: [Behaviour] = []) {
        state.withLock { state in
            state.login += login
            state.validate += validate
            state.renew += renew
            state.revoke += revoke
        }
    }

    func setDefaults(validate: Behaviour? = nil, renew: Behaviour? = nil) {
        state.withLock { state in
            if let validate { state.defaultValidate = validate }
            if let renew { state.defaultRenew = renew }
        }
    }

    /// Makes every renewal wait for `gate` before answering.
    func gateRenewals(_ gate: (@Sendable () async -> Void)?) {
        state.withLock { $0.renewGate = gate }
    }

    /// Makes every validation wait for `gate` (counted on arrival) before answering.
    func gateValidations(_ gate: (@Sendable () async -> Void)?) {
        state.withLock { $0.validateGate = gate }
    }

    /// Makes every revocation wait for `gate` (counted on arrival) before answering.
    func gateRevocations(_ gate: (@Sendable () async -> Void)?) {
        state.withLock { $0.revokeGate = gate }
    }

    /// Invalidates the current access token at the "server" (requests with it get 401).
    func revokeAccessTokenAtServer() {
        state.withLock { $0.validAccessToken = nil }
    }

    var counts: (login: Int, validate: Int, renew: Int, revoke: Int) {
        state.withLock { ($0.loginCalls, $0.validateCalls, $0.renewCalls, $0.revokeCalls) }
    }

    var validAccessToken: String? { state.withLock { $0.validAccessToken } }
    var validRefreshToken: String? { state.withLock { $0.validRefreshToken } }

    /// A token set as the server would issue it now.
    func issueTokens(lifetime: TimeInterval? = nil) -> SessionTokens {
        let lifetime = lifetime ?? self.lifetime
        let now = clock.now
        return state.withLock { state in
            state.issued += 1
            let tokens = SessionTokens(
                accessToken: "access-\(state.issued)-\(secret)", refreshToken: "refresh-\(state.issued)-\(secret)",
                issuedAt: now, expiresAt: now.addingTimeInterval(lifetime))
            state.validAccessToken = tokens.accessToken
            state.validRefreshToken = tokens.refreshToken
            return tokens
        }
    }

    func report(_ tokens: SessionTokens, user: String = "user-1") -> AuthenticatedSession {
        let expires = state.withLock { $0.sessionExpiresAt }
        return AuthenticatedSession(
            tokens: tokens,
            session: Session(id: "session-1", userID: user, startedAt: clock.now, expiresAt: expires),
            user: User(id: user, email: "\(user)@example.com", name: "Test User"))
    }

    private func next(_ keyPath: WritableKeyPath<State, [Behaviour]>, default fallback: KeyPath<State, Behaviour>) -> Behaviour {
        state.withLock { state in
            if state[keyPath: keyPath].isEmpty { return state[keyPath: fallback] }
            return state[keyPath: keyPath].removeFirst()
        }
    }

    private func perform(_ behaviour: Behaviour) throws {
        switch behaviour {
        case .succeed: return
        case .fail(let error): throw error
        case .failTransport: throw TransportError(.cannotConnect, request: "POST https://scripted.invalid/", message: "connection refused")
        }
    }

    // MARK: AuthProvider

    var sessionDurationBounds: ClosedRange<Duration>? {
        extendsSessions ? .seconds(5 * 60) ... .seconds(366 * 24 * 3600) : nil
    }

    func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
        state.withLock {
            $0.loginCalls += 1
            $0.loginDurations.append(sessionDuration)
            $0.loginPending.append(pending)
        }
        guard let credentials = credentials as? ScriptedCredentials else {
            throw AuthError(.unsupportedCredentials, "the scripted provider takes ScriptedCredentials")
        }
        // A password is a secret too; short ones ("wrong", "nope") are words that
        // messages may contain for other reasons.
        if credentials.password.utf8.count >= 8 { SecretLedger.current?.issued(credentials.password) }
        if let gate = state.withLock({ $0.loginGate }) { await gate() }
        try perform(next(\.login, default: \.defaultValidate))
        guard credentials.password == "correct horse" else {
            throw AuthError(.unrecoverable, "wrong password", providerCode: "unauthorized_credentials", httpStatus: 401)
        }
        return report(issueTokens(), user: credentials.user)
    }

    func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession {
        let gate = state.withLock { state in
            state.validateCalls += 1
            return state.validateGate
        }
        if let gate { await gate() }
        try perform(next(\.validate, default: \.defaultValidate))
        return report(current.tokens)
    }

    func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation {
        let handler = state.withLock { $0.prepareHandler }
        guard let handler else { return RenewalPreparation() }
        return try await handler(request)
    }

    func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
        let tokens = current.tokens
        let sessionDuration = request.sessionDuration
        let gate = state.withLock { state in
            state.renewCalls += 1
            state.renewDurations.append(sessionDuration)
            state.renewRequests.append(request)
            state.renewPreparations.append(preparation)
            return state.renewGate
        }
        if let gate { await gate() }
        try perform(next(\.renew, default: \.defaultRenew))
        let known = state.withLock { $0.validRefreshToken }
        guard tokens.refreshToken == known else {
            throw AuthError(.unrecoverable, "Unknown or invalid refresh token.", providerCode: "invalid_grant", httpStatus: 403)
        }
        var issued = issueTokens(lifetime: state.withLock { $0.nextLifetime })
        if state.withLock({ $0.renewsToSameTokens }) {
            issued = SessionTokens(
                accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, issuedAt: issued.issuedAt, expiresAt: issued.expiresAt)
            state.withLock {
                $0.validAccessToken = tokens.accessToken
                $0.validRefreshToken = tokens.refreshToken
            }
        }
        if let scope = request.scope { issued.scope = scope }
        if let audience = request.audience { issued.audience = audience }
        return report(issued)
    }

    /// The app's server says "banned" with a 403 whose body is `banned`: the session ends.
    func inspect(_ response: TransportResponse, to request: TransportRequest) -> AuthError? {
        guard response.status == 403, response.body == Data("banned".utf8) else { return nil }
        return AuthError.terminated(.globalBan, "the user is banned", providerCode: "400312", httpStatus: 403)
    }

    func revoke(_ current: AuthenticatedSession) async throws {
        let gate = state.withLock { state in
            state.revokeCalls += 1
            return state.revokeGate
        }
        if let gate { await gate() }
        try perform(next(\.revoke, default: \.defaultValidate))
        state.withLock {
            $0.validAccessToken = nil
            $0.validRefreshToken = nil
        }
    }
}

/// The app's API, in memory: answers 200 to requests bearing the provider's valid
/// access token, 401 otherwise, and counts requests.
final class AppAPITransport: HTTPTransport {
    let provider: ScriptedProvider
    let requests = Atomic<Int>(0)
    /// When set, every request is answered 401 (a server that never accepts us).
    let alwaysUnauthorized = Atomic<Bool>(false)
    /// When non-zero, every request is answered with this status (403 answers `banned`).
    let forcedStatus = Atomic<Int>(0)

    init(provider: ScriptedProvider) {
        self.provider = provider
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        requests.add(1, ordering: .relaxed)
        await Task.yield()
        let valid = provider.validAccessToken
        if alwaysUnauthorized.load(ordering: .relaxed) { return TransportResponse(status: 401) }
        let forced = forcedStatus.load(ordering: .relaxed)
        if forced != 0 { return TransportResponse(status: forced, body: Data(forced == 403 ? "banned".utf8 : "nope".utf8)) }
        guard let valid, request.headers["Authorization"] == "Bearer \(valid)" else { return TransportResponse(status: 401) }
        return TransportResponse(status: 200, body: Data("ok".utf8))
    }
}
