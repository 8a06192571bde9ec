internal import Foundation
@_spi(Benchmarks) internal import Latchkey
internal import LatchkeyAuth0
internal import LatchkeyEmulator
internal import LatchkeyJSON

/// Auth0: database users log in with the password-realm grant (`offline_access`, so a
/// refresh token comes back); access tokens live a few simulated hours and renew with the
/// refresh grant, which rotates the refresh token (reuse of a spent one revokes the
/// family); app requests go to `GET /userinfo`. A ban (blocked), a deletion and a
/// revocation end the session (`invalid_grant` on refresh); an expiry of the access
/// tokens does not (the client refreshes).
///
/// The driver keeps each user's ``RefreshLedger`` and judges stored refresh tokens
/// against the emulator's record (``LatchkeyEmulator/Auth0RefreshTokenStatus``): see
/// ``Auth0RefreshJudge``.
struct Auth0SoakDriver: SoakDriver {
    static let name = "auth0"
    static let provider = EmulatorProvider.auth0

    let baseURL: URL
    let domain: String
    let clientID: String
    let connection: String

    static func configure(_ seed: inout EmulatorSeed, settings: SoakSettings) {
        // Refreshes every few simulated hours instead of once a day.
        seed.auth0.accessTokenLifetime = Int(settings.tokenLifetimeMinutes * 60)
        seed.auth0.rotateRefreshTokens = true
    }

    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint {
        guard let endpoint = emulator.auth0 else { throw SoakError("the emulator does not run Auth0") }
        return [
            "base_url": endpoint.baseURL.absoluteString, "domain": endpoint.domain, "client_id": endpoint.clientID,
            "connection": endpoint.connection,
        ]
    }

    init(endpoint: SoakEndpoint) throws {
        guard let text = endpoint["base_url"], let url = URL(string: text), let domain = endpoint["domain"],
            let clientID = endpoint["client_id"], let connection = endpoint["connection"]
        else {
            throw SoakError("the Auth0 endpoint needs base_url, domain, client_id and connection")
        }
        baseURL = url
        self.domain = domain
        self.clientID = clientID
        self.connection = connection
    }

    var factory: ProviderFactory { Auth0Provider.factory }

    func createUsers(_ count: Int, control: EmulatorControl) async throws -> [SoakUser] {
        var users: [SoakUser] = []
        for index in 0..<count {
            let id = String(format: "auth0|soak-%04d", index)
            let email = String(format: "soak-%04d@auth0.example", index)
            let password = String(format: "soak-password-%04d-Auth0", index)
            try await control.createAuth0User(Auth0Seed.User(userID: id, email: email, password: password))
            users.append(SoakUser(id: id, password: password, extra: ["email": email]))
        }
        return users
    }

    func configuration(for user: SoakUser, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration {
        LatchkeyConfiguration(
            provider: "auth0", settings: ["domain": domain, "client_id": clientID, "base_url": baseURL.absoluteString],
            store: store, session: session)
    }

    func credentials(for user: SoakUser) async throws -> any LoginCredentials {
        Auth0Credentials.password(username: user.extra["email"] ?? "", password: user.password ?? "", realm: connection)
    }

    func appRequest(for user: SoakUser) -> TransportRequest {
        TransportRequest(method: "GET", url: baseURL.appending(path: "userinfo"), headers: ["Accept": "application/json"])
    }

    /// Every token grant: the password-realm login and the refresh.
    func isRenewalRequest(_ request: TransportRequest) -> Bool {
        request.method == "POST" && request.url.path.hasSuffix("/oauth/token")
    }

    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String] {
        var found: [String] = []
        let form = WireFields.form(request.body)
        found += ["password", "refresh_token", "token", "client_secret", "mfa_token"].compactMap { form[$0] }.filter { !$0.isEmpty }
        if let bearer = WireFields.bearer(request) { found.append(bearer) }
        found += WireFields.strings(WireFields.json(success: response), ["access_token", "refresh_token", "id_token"])
        return found
    }

    var faultRoutes: [EmulatorRoute] {
        [EmulatorRoute(.auth0, "POST", "/oauth/token"), EmulatorRoute(.auth0, "GET", "/userinfo"), EmulatorRoute(.auth0, "POST", "/oauth/revoke")]
    }

    func endsSession(_ event: SoakEvent) -> Bool { event != .expireSessions }

    func perform(_ event: SoakEvent, on user: SoakUser, control: EmulatorControl) async throws {
        switch event {
        case .ban: try await control.banUser(user.id, provider: .auth0)
        case .delete: try await control.deleteUser(user.id, provider: .auth0)
        case .revokeSessions: try await control.revokeSessions(of: user.id, provider: .auth0)
        case .expireSessions: try await control.expireSessions(of: user.id, provider: .auth0)
        }
    }

    // MARK: Refresh tokens

    var tracksRefreshTokens: Bool { true }

    private func isTokenRequest(_ request: TransportRequest) -> Bool { isRenewalRequest(request) }

    func ledgerBeforeSending(_ request: TransportRequest) -> [RefreshLedger.Entry] {
        guard request.method == "POST" else { return [] }
        let form = WireFields.form(request.body)
        if isTokenRequest(request), form["grant_type"] == "refresh_token", let token = form["refresh_token"] {
            return [RefreshLedger.Entry(.presented, token)]
        }
        if request.url.path.hasSuffix("/oauth/revoke"), let token = form["token"] { return [RefreshLedger.Entry(.revoked, token)] }
        return []
    }

    func ledgerAfter(_ request: TransportRequest, response: TransportResponse?) -> [RefreshLedger.Entry] {
        guard request.method == "POST", isTokenRequest(request) else { return [] }
        let form = WireFields.form(request.body)
        let presented = form["grant_type"] == "refresh_token" ? form["refresh_token"] : nil
        guard let response else { return presented.map { [RefreshLedger.Entry(.unanswered, $0)] } ?? [] }
        if let received = WireFields.json(success: response)?["refresh_token"]?.stringValue, !received.isEmpty {
            return [RefreshLedger.Entry(.received, received)]
        }
        if let presented, WireFields.json(response.body)?["error"]?.stringValue == "invalid_grant" {
            return [RefreshLedger.Entry(.denied, presented)]
        }
        return []
    }

    func refreshToken(inVault bytes: [UInt8]) -> String? {
        // The client's own codec: the record is binary since vault format 2.
        (try? StoredSessionRecord(decoding: bytes, provider: providerID))?.tokens.refreshToken
    }

    func judgeStoredSession(
        _ vault: [UInt8], of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl
    ) async -> StoredSessionVerdict {
        guard let token = refreshToken(inVault: vault) else { return .fine }
        var judge = Auth0RefreshJudge(ledger: ledger, control: control)
        return await judge.stored(token)
    }

    func explainEnd(of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl) async -> EndExplanation? {
        var judge = Auth0RefreshJudge(ledger: ledger, control: control)
        return await judge.explainDenial()
    }
}
