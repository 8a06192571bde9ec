import Foundation
import LatchkeyEmulator
import LatchkeyJSON

/// Real tokens from the emulator, fetched as a client app would.
struct EmulatorTokens {
    let emulator: Emulator
    let client = Client.shared

    static let acme = "organization-test-00000000-0000-4000-8000-00000000ac3e"
    static let globex = "organization-test-00000000-0000-4000-8000-0000000091be"
    static let alice = "user-test-00000000-0000-4000-8000-00000000a11c"
    static let bob = "member-test-00000000-0000-4000-8000-000000000b0b"
    static let api = Auth0Seed.standardAPI.identifier

    var stytch: StytchEndpoint { get throws { try emulator.stytch.orThrow("Stytch is not running") } }
    var auth0: Auth0Endpoint { get throws { try emulator.auth0.orThrow("Auth0 is not running") } }

    /// alice's session JWT (consumer).
    func stytchSessionJWT() async throws -> String {
        try await stytchLogin(
            "passwords/authenticate", ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": 60])
    }

    /// bob's member session JWT in Acme (B2B).
    func stytchB2BSessionJWT() async throws -> String {
        try await stytchLogin(
            "b2b/passwords/authenticate",
            [
                "organization_id": .string(Self.acme), "email_address": "bob@acme.example",
                "password": "bob-password-1", "session_duration_minutes": 60,
            ])
    }

    private func stytchLogin(_ path: String, _ body: JSONObject) async throws -> String {
        let stytch = try stytch
        let basic = "Basic " + Data("\(stytch.publicToken):\(stytch.publicToken)".utf8).base64EncodedString()
        let reply = try await client.send(
            "POST", stytch.sdkBaseURL.appending(path: path), headers: ["Authorization": basic],
            body: Data(JSONValue.object(body).jsonBytes))
        guard reply.status == 200, let jwt = try JSONValue.parse(reply.body)["data"]?["session_jwt"]?.stringValue else {
            throw TestFailure("Stytch login: HTTP \(reply.status) \(reply.body)")
        }
        return jwt
    }

    /// alice's access token for the standard API, with `scope`.
    func auth0AccessToken(scope: String = "openid read:messages", audience: String = api) async throws -> String {
        let auth0 = try auth0
        let body: JSONObject = [
            "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "client_id": .string(auth0.clientID),
            "username": "alice@example.com", "password": "alice-password-1", "realm": .string(auth0.connection),
            "audience": .string(audience), "scope": .string(scope),
        ]
        return try await token(body)
    }

    /// The standard machine client's token for the standard API.
    func auth0MachineToken(scope: String? = nil) async throws -> String {
        var body: JSONObject = [
            "grant_type": "client_credentials", "client_id": .string(Auth0Seed.standardMachineClient.clientID),
            "client_secret": .string(Auth0Seed.standardMachineClient.clientSecret), "audience": .string(Self.api),
        ]
        if let scope { body["scope"] = .string(scope) }
        return try await token(body)
    }

    private func token(_ body: JSONObject) async throws -> String {
        let reply = try await client.send("POST", try auth0.baseURL.appending(path: "oauth/token"), body: Data(JSONValue.object(body).jsonBytes))
        guard reply.status == 200, let token = try JSONValue.parse(reply.body)["access_token"]?.stringValue else {
            throw TestFailure("Auth0 token: HTTP \(reply.status) \(reply.body)")
        }
        return token
    }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw TestFailure(message) }
        return self
    }
}
