internal import Foundation
internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeyJSON
internal import LatchkeyJWT
internal import LatchkeySocialPlus

/// social.plus: users log in with their user ID (the network is not in secure mode);
/// a renewal is a new login (`POST /api/v5/sessions`); app requests go to
/// `GET /api/v3/users/{userId}`, which checks the bearer token. A ban and a deletion end a
/// session; revoking or expiring the user's sessions does not (the client logs in again).
struct SocialPlusSoakDriver: SoakDriver {
    static let name = "socialplus"
    static let provider = EmulatorProvider.socialPlus

    let baseURL: URL
    let apiKey: String

    static func configure(_ seed: inout EmulatorSeed, settings: SoakSettings) {
        // Renewals every few simulated hours instead of the 30-day default.
        seed.socialPlus.accessTokenLifetime = settings.tokenLifetimeMinutes * 60
    }

    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint {
        guard let endpoint = emulator.socialPlus else { throw SoakError("the emulator does not run social.plus") }
        return ["base_url": endpoint.baseURL.absoluteString, "api_key": endpoint.apiKey]
    }

    init(endpoint: SoakEndpoint) throws {
        guard let text = endpoint["base_url"], let url = URL(string: text), let apiKey = endpoint["api_key"] else {
            throw SoakError("social.plus endpoint needs base_url and api_key")
        }
        baseURL = url
        self.apiKey = apiKey
    }

    var factory: ProviderFactory { SocialPlusProvider.factory }

    func createUsers(_ count: Int, control: EmulatorControl) async throws -> [SoakUser] {
        var users: [SoakUser] = []
        for index in 0..<count {
            let id = String(format: "soak-sp-%04d", index)
            try await control.createSocialPlusUser(SocialPlusSeed.User(userID: id, displayName: "Soak \(index)"))
            users.append(SoakUser(id: id))
        }
        return users
    }

    func configuration(for user: SoakUser, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration {
        LatchkeyConfiguration(
            provider: SocialPlusProvider.identifier,
            settings: ["api_key": apiKey, "base_url": baseURL.absoluteString], store: store, session: session)
    }

    func credentials(for user: SoakUser) async throws -> any LoginCredentials {
        SocialPlusLogin(userID: user.id)
    }

    func appRequest(for user: SoakUser) -> TransportRequest {
        TransportRequest(method: "GET", url: baseURL.appendingPathComponent("api/v3/users/\(user.id)"), headers: ["Accept": "application/json"])
    }

    func isRenewalRequest(_ request: TransportRequest) -> Bool {
        request.method == "POST" && request.url.path.hasSuffix("/api/v5/sessions")
    }

    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String] {
        var found: [String] = []
        if let key = request.headers["X-API-Key"] { found.append(key) }
        if let bearer = request.headers["Authorization"], bearer.hasPrefix("Bearer ") { found.append(String(bearer.dropFirst(7))) }
        if let response, (200..<300).contains(response.status),
            let token = (try? JSONValue.parse(bytes: Array(response.body)))?["accessToken"]?.stringValue
        {
            found.append(token)
        }
        return found
    }

    var faultRoutes: [EmulatorRoute] {
        [
            EmulatorRoute(.socialPlus, "POST", "/api/v5/sessions"), EmulatorRoute(.socialPlus, "GET", "/api/v3/users/{userId}"),
            EmulatorRoute(.socialPlus, "DELETE", "/api/v4/sessions"),
        ]
    }

    func perform(_ event: SoakEvent, on user: SoakUser, control: EmulatorControl) async throws {
        switch event {
        case .ban: try await control.banUser(user.id, provider: .socialPlus)
        case .delete: try await control.deleteUser(user.id, provider: .socialPlus)
        case .revokeSessions: try await control.revokeSessions(of: user.id, provider: .socialPlus)
        case .expireSessions: try await control.expireSessions(of: user.id, provider: .socialPlus)
        }
    }
}
