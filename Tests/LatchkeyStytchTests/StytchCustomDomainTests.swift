import Foundation
import Latchkey
import LatchkeyJSON
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// A session JWT issued under the project's custom domain is accepted as `iss`; anything
/// else — another domain, the same text in another Unicode spelling — is refused. The
/// emulator signs only `stytch.com/{project}` tokens, so this test serves its own JWKS.
@Suite struct StytchCustomDomainTests {
    static let project = "project-test-00000000-0000-4000-8000-000000000000"

    static func verifier(customDomain: String, key: JWTKey) throws -> StytchProvider {
        let jwks = JWKSet(keys: [key]).jsonText()
        let transport = FixedTransport(response: TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(jwks.utf8)))
        let settings = try StytchConfiguration(
            publicToken: "public-token-test-00000000-0000-4000-8000-000000000000", appIdentifier: "dev.latchkey.example",
            baseURL: URL(string: "https://api.example.com/"), projectID: project, customDomain: customDomain)
        return StytchProvider(configuration: settings, transport: transport)
    }

    static func token(issuer: String, key: JWTKey) throws -> String {
        let now = Date().timeIntervalSince1970
        let claims: JSONObject = [
            "iss": .string(issuer), "aud": .array([.string(project)]), "sub": "user-test-1",
            "iat": .number(now), "nbf": .number(now), "exp": .number(now + 300),
            "https://stytch.com/session": .object(["id": "session-test-1", "expires_at": "2030-01-01T00:00:00Z"]),
        ]
        return try JWT.sign(claims, key: key)
    }

    @Test func theCustomDomainIsAcceptedAsIssuer() async throws {
        let key = try JWTKey.generate(for: .rs256, keyID: "custom-1")
        let provider = try Self.verifier(customDomain: "https://auth.example.com", key: key)
        let claims = try await provider.verifySessionJWT(try Self.token(issuer: "https://auth.example.com", key: key))
        #expect(claims.issuer == "https://auth.example.com")
        #expect(claims.sessionID == "session-test-1")
        let standard = try await provider.verifySessionJWT(try Self.token(issuer: "stytch.com/\(Self.project)", key: key))
        #expect(standard.subject == "user-test-1")
    }

    @Test(arguments: [
        "https://evil.example.com", "https://auth.example.com/", "https://auth.example.cöm",
        "stytch.com/project-other",
    ])
    func anotherIssuerIsRefused(issuer: String) async throws {
        let key = try JWTKey.generate(for: .rs256, keyID: "custom-1")
        let provider = try Self.verifier(customDomain: "https://auth.example.com", key: key)
        let error = await #expect(throws: AuthError.self) { _ = try await provider.verifySessionJWT(try Self.token(issuer: issuer, key: key)) }
        #expect(error?.providerCode == "wrongIssuer")
    }

    @Test func canonicallyEquivalentSpellingsAreDifferentIssuers() async throws {
        let key = try JWTKey.generate(for: .rs256, keyID: "custom-1")
        let provider = try Self.verifier(customDomain: "https://caf\u{E9}.example.com", key: key)
        _ = try await provider.verifySessionJWT(try Self.token(issuer: "https://caf\u{E9}.example.com", key: key))
        await #expect(throws: AuthError.self) {
            _ = try await provider.verifySessionJWT(try Self.token(issuer: "https://cafe\u{301}.example.com", key: key))
        }
    }
}
