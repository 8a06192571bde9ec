internal import Foundation
internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeyStytch

/// Stytch consumer: users log in with an email and password (`passwords/authenticate`);
/// the client extends the session at every check and renewal (`auto_extend`, a day), so
/// it never runs out on its own during the run; app requests go to the emulator's stand-in
/// for the app's API (`GET /__app/session`), which checks the bearer session JWT and the
/// session behind it. Every event ends the session: a ban, a deletion, a revocation, an
/// expiry at the provider (`sessions/authenticate` answers 401 `unauthorized_credentials`).
struct StytchSoakDriver: SoakDriver {
    static let name = "stytch"
    static let provider = EmulatorProvider.stytch

    let wire: StytchSoakWire

    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint {
        try StytchSoakWire.endpoint(of: emulator)
    }

    init(endpoint: SoakEndpoint) throws {
        wire = try StytchSoakWire(endpoint: endpoint, b2b: false)
    }

    var factory: ProviderFactory { StytchProvider.factory }

    func createUsers(_ count: Int, control: EmulatorControl) async throws -> [SoakUser] {
        var users: [SoakUser] = []
        for index in 0..<count {
            let id = String(format: "user-test-soak-%04d", index)
            let email = String(format: "soak-%04d@stytch.example", index)
            let password = StytchSoakWire.password(index)
            try await control.createStytchUser(StytchSeed.User(userID: id, email: email, password: password))
            users.append(SoakUser(id: id, password: password, extra: ["email": email]))
        }
        return users
    }

    func configuration(for user: SoakUser, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration {
        wire.configuration(provider: StytchProvider.identifier, store: store, session: session)
    }

    func credentials(for user: SoakUser) async throws -> any LoginCredentials {
        StytchCredentials.password(email: user.extra["email"] ?? "", password: user.password ?? "")
    }

    func appRequest(for user: SoakUser) -> TransportRequest { wire.appRequest() }

    func isRenewalRequest(_ request: TransportRequest) -> Bool { wire.isRenewalRequest(request) }

    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String] { wire.secrets(in: request, response: response) }

    var faultRoutes: [EmulatorRoute] { wire.faultRoutes }

    func counts(_ record: EmulatorRequestRecord) -> Bool { wire.counts(record) }

    func endsSession(_ event: SoakEvent) -> Bool { true }

    func perform(_ event: SoakEvent, on user: SoakUser, control: EmulatorControl) async throws {
        try await StytchSoakWire.perform(event, on: user.id, control: control)
    }
}

/// What the consumer and B2B drivers share: the endpoint, the settings, the app request,
/// which requests issue sessions, the secrets on the wire, the routes faults hit, and the
/// events at the emulator — each with its `b2b/` variant.
struct StytchSoakWire: Sendable {
    let baseURL: URL
    let publicToken: String
    let projectID: String
    let appIdentifier: String
    let b2b: Bool

    /// How long a session lasts at the provider; every check and renewal extends it again
    /// (`auto_extend`), so only an event ends it during the run.
    static let sessionDuration: Duration = .seconds(86_400)

    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint {
        guard let endpoint = emulator.stytch else { throw SoakError("the emulator does not run Stytch") }
        return [
            "base_url": endpoint.baseURL.absoluteString, "public_token": endpoint.publicToken, "project_id": endpoint.projectID,
            "app_identifier": endpoint.appIdentifier,
        ]
    }

    init(endpoint: SoakEndpoint, b2b: Bool) throws {
        guard let text = endpoint["base_url"], let url = URL(string: text), let publicToken = endpoint["public_token"],
            let projectID = endpoint["project_id"], let appIdentifier = endpoint["app_identifier"]
        else {
            throw SoakError("the Stytch endpoint needs base_url, public_token, project_id and app_identifier")
        }
        baseURL = url
        self.publicToken = publicToken
        self.projectID = projectID
        self.appIdentifier = appIdentifier
        self.b2b = b2b
    }

    /// A user's password: unique, and long enough for the secret scan.
    static func password(_ index: Int) -> String { String(format: "soak-password-%04d-Stytch", index) }

    func configuration(provider: String, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration {
        var session = session
        session.sessionDuration = Self.sessionDuration
        return LatchkeyConfiguration(
            provider: provider,
            settings: [
                "public_token": publicToken, "base_url": baseURL.absoluteString, "project_id": projectID,
                "app_identifier": appIdentifier, "auto_extend": "true",
            ],
            store: store, session: session)
    }

    private var prefix: String { b2b ? "/sdk/v1/b2b/" : "/sdk/v1/" }
    private var appPath: String { b2b ? "__app/b2b/session" : "__app/session" }

    func appRequest() -> TransportRequest {
        TransportRequest(method: "GET", url: baseURL.appending(path: appPath), headers: ["Accept": "application/json"])
    }

    /// A password login, or a `sessions/authenticate` that extends the session (with
    /// `auto_extend` every check and renewal does).
    func isRenewalRequest(_ request: TransportRequest) -> Bool {
        guard request.method == "POST" else { return false }
        let path = request.url.path
        if path.hasSuffix(prefix + "passwords/authenticate") { return true }
        guard path.hasSuffix(prefix + "sessions/authenticate") else { return false }
        return WireFields.json(request.body)?["session_duration_minutes"] != nil
    }

    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String] {
        var found: [String] = []
        if let basic = WireFields.basic(request), basic.secret != basic.user {
            found.append(basic.secret)
            // The encoded pair, from where it encodes only the session token (the public
            // token's part is the same in every request, secret or not).
            let skip = (basic.user.utf8.count + 1 + 2) / 3 * 4
            if let run = basic.encoded.dropFirst(skip).split(whereSeparator: { !SecretLedger.isTokenCharacter($0) }).max(by: { $0.count < $1.count }),
                run.count >= 24
            {
                found.append(String(run))
            }
        }
        if let bearer = WireFields.bearer(request) { found.append(bearer) }
        found += WireFields.strings(WireFields.json(request.body), ["password", "intermediate_session_token"])
        found += WireFields.strings(WireFields.json(success: response)?["data"], ["session_token", "session_jwt", "intermediate_session_token"])
        return found
    }

    var faultRoutes: [EmulatorRoute] {
        [
            EmulatorRoute(.stytch, "POST", prefix + "sessions/authenticate"), EmulatorRoute(.stytch, "POST", prefix + "sessions/revoke"),
            EmulatorRoute(.stytch, "POST", prefix + "passwords/authenticate"), EmulatorRoute(.stytch, "GET", "/" + appPath),
        ]
    }

    /// Consumer and B2B share the emulated project: each counts its own paths.
    func counts(_ record: EmulatorRequestRecord) -> Bool {
        record.path.contains("/b2b/") == b2b
    }

    /// Ban, deletion, revocation of every session, expiry of every session now.
    static func perform(_ event: SoakEvent, on id: String, control: EmulatorControl) async throws {
        switch event {
        case .ban: try await control.banUser(id, provider: .stytch)
        case .delete: try await control.deleteUser(id, provider: .stytch)
        case .revokeSessions: try await control.revokeSessions(of: id, provider: .stytch)
        case .expireSessions: try await control.expireSessions(of: id, provider: .stytch)
        }
    }
}
