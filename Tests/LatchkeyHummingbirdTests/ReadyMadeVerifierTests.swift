import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyHummingbird
import Testing

/// The ready-made verifiers accept what each provider issues, over real HTTP: the
/// identity in the context carries the subject, the organization and the scopes.
@Suite struct ReadyMadeVerifierTests {
    @Test func stytchConsumerSessionJWTs() async throws {
        try await Harness.with { harness in
            let jwt = try await harness.tokens.stytchSessionJWT()
            try await harness.serve(try harness.stytchVerifier()) { (url: URL) async throws in
                let reply = try await harness.client.get(url, bearer: jwt)
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply.body == "\(EmulatorTokens.alice)||")
            }
        }
    }

    @Test func stytchB2BSessionJWTsCarryTheOrganization() async throws {
        try await Harness.with { harness in
            let member = try await harness.tokens.stytchB2BSessionJWT()
            let consumer = try await harness.tokens.stytchSessionJWT()
            try await harness.serve(try harness.stytchVerifier(b2b: true)) { (url: URL) async throws in
                let reply = try await harness.client.get(url, bearer: member)
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply.body == "\(EmulatorTokens.bob)|\(EmulatorTokens.acme)|")
                // A consumer session has no organization: not a member's token.
                try await harness.client.get(url, bearer: consumer).expectInvalidToken()
            }
            try await harness.serve(try harness.stytchVerifier(b2b: true, organizationID: EmulatorTokens.acme)) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: member).status == 200)
            }
            // A member of Acme at Globex's API.
            try await harness.serve(try harness.stytchVerifier(b2b: true, organizationID: EmulatorTokens.globex)) { (url: URL) async throws in
                try await harness.client.get(url, bearer: member).expectInvalidToken()
            }
        }
    }

    @Test func stytchAcceptsTheCustomDomainAsIssuer() async throws {
        try await Harness.with { harness in
            let stytch = try harness.tokens.stytch
            let verifier = try BearerTokenVerifier.stytch(
                projectID: stytch.projectID, customDomain: "https://login.example.com/", baseURL: stytch.baseURL,
                transport: harness.transport, clock: harness.clock)
            #expect(verifier.options.issuers == ["stytch.com/\(stytch.projectID)", "https://login.example.com"])
            try await harness.serve(verifier) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: try await harness.tokens.stytchSessionJWT()).status == 200)
            }
        }
    }

    @Test func auth0AccessTokensForTheAPI() async throws {
        try await Harness.with { harness in
            let token = try await harness.tokens.auth0AccessToken(scope: "openid read:messages")
            try await harness.serve(try harness.auth0Verifier(), scopes: ["read:messages"]) { (url: URL) async throws in
                let reply = try await harness.client.get(url, bearer: token)
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply.body == "auth0|alice||openid read:messages")
            }
        }
    }

    @Test func auth0MachineTokensGrantTheirPermissions() async throws {
        try await Harness.with { harness in
            let token = try await harness.tokens.auth0MachineToken(scope: "read:messages write:messages")
            try await harness.serve(try harness.auth0Verifier(), scopes: ["write:messages"]) { (url: URL) async throws in
                let reply = try await harness.client.get(url, bearer: token)
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply.body == "\(Auth0Seed.standardMachineClient.clientID)@clients||read:messages write:messages")
            }
            try await harness.serve(try harness.auth0Verifier(), scopes: ["read:reports"]) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: token).status == 403)
            }
        }
    }

    @Test func anyOIDCIssuerFromItsDiscoveryDocument() async throws {
        try await Harness.with { harness in
            let auth0 = try harness.tokens.auth0
            let verifier = try await BearerTokenVerifier.discovering(
                issuer: auth0.issuer, audience: EmulatorTokens.api, discoveryURL: auth0.discoveryURL,
                transport: harness.transport, clock: harness.clock)
            let token = try await harness.tokens.auth0AccessToken()
            try await harness.serve(verifier) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: token).status == 200)
            }
        }
    }

    @Test func aDiscoveryDocumentForAnotherIssuerOrOverPlainHTTPIsRefused() async throws {
        try await Harness.with { harness in
            let auth0 = try harness.tokens.auth0
            let other = await #expect(throws: AuthError.self) {
                _ = try await BearerTokenVerifier.discovering(
                    issuer: "https://other-tenant.eu.auth0.com/", audience: EmulatorTokens.api,
                    discoveryURL: auth0.discoveryURL, transport: harness.transport, clock: harness.clock)
            }
            #expect(other?.code == .configuration)
            let plain = await #expect(throws: AuthError.self) {
                _ = try await BearerTokenVerifier.discovering(
                    issuer: "http://tenant.example.com/", audience: EmulatorTokens.api,
                    transport: harness.transport, clock: harness.clock)
            }
            #expect(plain?.code == .configuration)
            let down = await #expect(throws: AuthError.self) {
                _ = try await BearerTokenVerifier.discovering(
                    issuer: auth0.issuer, audience: EmulatorTokens.api,
                    discoveryURL: URL(string: "http://127.0.0.1:1/.well-known/openid-configuration"),
                    transport: harness.transport, clock: harness.clock)
            }
            #expect(down?.code == .transient)
        }
    }

    @Test func verifiersRefuseAConfigurationThatCannotWork() throws {
        #expect(throws: AuthError.self) { try BearerTokenVerifier.stytch(projectID: "") }
        #expect(throws: AuthError.self) { try BearerTokenVerifier.auth0(domain: "https://tenant.auth0.com/", audience: "api") }
        #expect(throws: AuthError.self) { try BearerTokenVerifier.auth0(domain: "tenant.auth0.com", audience: "") }
        #expect(throws: AuthError.self) {
            try BearerTokenVerifier.auth0(domain: "tenant.auth0.com", audience: "api", baseURL: URL(string: "http://tenant.auth0.com/"))
        }
    }
}
