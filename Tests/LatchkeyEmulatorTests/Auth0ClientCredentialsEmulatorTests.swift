import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// The `client_credentials` grant as Auth0 answers it: a signed machine token for a
/// registered API, within the client grant's scopes, and each refusal in Auth0's words.
@Suite struct Auth0ClientCredentialsEmulatorTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let machine = Auth0Seed.standardMachineClient
    static let api = Auth0Seed.standardAPI.identifier
    let http = EmulatorHTTP.shared

    private func withAuth0(_ body: (Emulator, Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.auth0))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func grant(_ auth0: Auth0Endpoint, _ changes: JSONObject = [:], form: Bool = false) async throws -> EmulatorHTTP.Reply {
        var body: JSONObject = [
            "grant_type": "client_credentials", "client_id": .string(Self.machine.clientID),
            "client_secret": .string(Self.machine.clientSecret), "audience": .string(Self.api),
        ]
        for member in changes { body[member.name] = member.value == .null ? nil : member.value }
        let url = auth0.baseURL.appending(path: "oauth/token")
        if form { return try await http.send("POST", url, form: body.compactMap { member in member.value.stringValue.map { (member.name, $0) } }) }
        return try await http.send("POST", url, json: body)
    }

    @Test func aMachineClientGetsASignedTokenForTheAPI() async throws {
        try await withAuth0 { emulator, auth0 in
            let reply = try await grant(auth0)
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.object()
            #expect(body.names.sorted() == ["access_token", "expires_in", "scope", "token_type"])
            #expect(body["token_type"] == "Bearer")
            #expect(body["expires_in"] == 86_400)
            #expect(body["scope"] == "read:messages write:messages read:reports")
            let token = try #require(body["access_token"]?.stringValue)
            let keys = try JWKSet(json: Array(try await http.send("GET", auth0.jwksURL).body))
            let jwt = try JWT.verify(
                token, keys: keys,
                options: JWTValidationOptions(
                    issuer: auth0.issuer, audience: Self.api,
                    now: { emulator.control.now }))
            #expect(jwt.header.algorithm == .rs256)
            #expect(jwt.claims.subject == "\(Self.machine.clientID)@clients")
            #expect(jwt.claims["gty"] == "client-credentials")
            #expect(jwt.claims["azp"]?.stringValue == Self.machine.clientID)
            #expect(jwt.claims["permissions"] == ["read:messages", "write:messages", "read:reports"])
            #expect(jwt.claims.expiresAt == Self.start.addingTimeInterval(86_400))
            // Form-encoded, as RFC 6749 writes it, works the same; a narrower scope is granted as asked.
            let narrow = try await grant(auth0, ["scope": "read:messages"], form: true)
            #expect(narrow.status == 200, "\(narrow.text)")
            #expect(try narrow.object()["scope"] == "read:messages")
            #expect(await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "client_credentials") == 2)
        }
    }

    @Test func everyRefusalIsAuth0s() async throws {
        try await withAuth0 { _, auth0 in
            let cases: [(JSONObject, Int, String, String)] = [
                (["client_secret": "wrong-secret"], 401, "access_denied", "Unauthorized"),
                (["client_secret": .null], 401, "access_denied", "Unauthorized"),
                (["client_id": "no-such-client"], 401, "access_denied", "Unauthorized"),
                (["client_id": .string(auth0.clientID)], 403, "unauthorized_client", "Grant type 'client_credentials' not allowed for the client."),
                (["audience": .null], 403, "access_denied", "No audience parameter was provided, and no default audience has been configured"),
                (
                    ["audience": "https://unknown-api.example/"], 403, "access_denied",
                    "Service not enabled within domain: https://unknown-api.example/"
                ),
                (["scope": "read:messages admin"], 403, "access_denied", "Client has not been granted scopes: admin"),
                (["scope": "delete:everything"], 403, "access_denied", "Client has not been granted scopes: delete:everything"),
            ]
            for (changes, status, error, description) in cases {
                let reply = try await grant(auth0, changes)
                #expect(reply.status == status, "\(changes): \(reply.text)")
                #expect(try reply.object()["error"]?.stringValue == error, "\(changes)")
                #expect(try reply.object()["error_description"]?.stringValue == description, "\(changes)")
                #expect(!reply.text.contains(Self.machine.clientSecret))
            }
        }
    }

    @Test func aClientWithoutAGrantForTheAPIIsRefused() async throws {
        var seed = Auth0Seed.standard
        let other = Auth0SeedAPI(identifier: "https://billing.example/", scopes: ["charge"])
        seed.apis = [Auth0Seed.standardAPI, other]
        seed.machineClients = [Self.machine]
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: seed), clockStart: Self.start))
        defer { Task { await emulator.stop() } }
        let auth0 = try #require(emulator.auth0)
        let reply = try await grant(auth0, ["audience": .string(other.identifier)])
        #expect(reply.status == 403)
        #expect(try reply.object()["error"] == "access_denied")
        #expect(
            try reply.object()["error_description"]?.stringValue?.hasPrefix("Client is not authorized to access \"https://billing.example/\"") == true
        )
        await emulator.stop()
    }

    @Test func theSeedNeverDescribesTheSecret() {
        #expect(!"\(Self.machine)".contains(Self.machine.clientSecret))
    }
}
