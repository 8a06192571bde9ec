import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyStytch
import Testing

/// Magic-link sends make and keep a PKCE pair as the SDKs do: the challenge goes with the
/// link, the verifier with its authentication; the emulator refuses a link sent with a
/// challenge and authenticated without its verifier.
@Suite struct StytchMagicLinkPKCETests {
    @Test func aConsumerLinkSentWithAChallengeIsAuthenticatedWithItsVerifier() async throws {
        try await StytchHarness.with { harness in
            let provider = try #require(harness.client.stytch)
            try await provider.sendMagicLink(email: "alice@example.com", loginMagicLinkURL: URL(string: "https://app.example/login"))
            let sent = try #require(harness.transport.last("magic_links/email/login_or_create")?.body)
            let challenge = try #require(sent["code_challenge"]?.stringValue)
            #expect(challenge.count == 43)
            #expect(sent["code_challenge_method"] == "S256")
            #expect(sent["login_magic_link_url"] == "https://app.example/login")

            let token = try await harness.emulator.control.sentStytchMagicLink(email: "alice@example.com")
            // A restarted client finds the verifier in the store.
            await harness.client.shutdown()
            let restarted = try StytchHarness.registry.makeClient(
                harness.configuration, store: harness.store, transport: harness.transport,
                clock: harness.clock, logger: harness.logs.logger)
            try await restarted.login(StytchCredentials.magicLink(token: token))
            #expect(restarted.state == .established)
            let verifier = try #require(harness.transport.last("magic_links/authenticate")?.body?["code_verifier"]?.stringValue)
            #expect(!verifier.isEmpty)
            #expect(!harness.logs.all.joined().contains(verifier))
            #expect(try await harness.store.names().contains { $0.hasSuffix("magic_link_pkce_verifier") } == false, "dropped once used")
            await restarted.shutdown()
        }
    }

    @Test func aLinkSentWithAChallengeIsRefusedWithoutItsVerifier() async throws {
        try await StytchHarness.with { harness in
            try await harness.client.stytch?.sendMagicLink(email: "alice@example.com")
            let token = try await harness.emulator.control.sentStytchMagicLink(email: "alice@example.com")
            // What the old adapter sent: the token alone, or another pair's verifier.
            let without = try await StytchRaw.post(harness.endpoint, "magic_links/authenticate", ["token": .string(token)])
            #expect(without["error_type"] == "pkce_mismatch")
            let wrong = await authError {
                try await harness.client.login(
                    StytchCredentials.magicLink(token: token, codeVerifier: "not-the-verifier-0123456789-abcdefghijklmnop"))
            }
            #expect(wrong?.providerCode == "pkce_mismatch")
            #expect(harness.client.state == .notLoggedIn)
            // The link is not used up by a refused verifier: the right one still works.
            try await harness.client.login(StytchCredentials.magicLink(token: token))
            #expect(harness.client.state == .established)
        }
    }

    @Test func aB2BLinkCarriesThePKCEVerifier() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            let provider = try #require(harness.client.stytchB2B)
            try await provider.sendMagicLink(organizationID: B2B.acme, emailAddress: "bob@acme.example")
            let sent = try #require(harness.transport.last("b2b/magic_links/email/login_or_signup")?.body)
            #expect(sent["pkce_code_challenge"]?.stringValue?.count == 43)
            #expect(sent["organization_id"] == .string(B2B.acme))
            let token = try await harness.emulator.control.sentStytchMagicLink(email: "bob@acme.example", organizationID: B2B.acme)

            let without = try await StytchRaw.post(harness.endpoint, "b2b/magic_links/authenticate", ["magic_links_token": .string(token)])
            #expect(without["error_type"] == "pkce_mismatch")
            try await harness.client.login(StytchB2BCredentials.magicLink(token: token))
            #expect(harness.client.state == .established)
            #expect(harness.client.currentMember?.email == "bob@acme.example")
            #expect(harness.transport.last("b2b/magic_links/authenticate")?.body?["pkce_code_verifier"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func aLinkIssuedWithoutAChallengeNeedsNoVerifier() async throws {
        try await StytchHarness.with { harness in
            let token = try await harness.emulator.control.issueStytchMagicLink(email: "alice@example.com")
            try await harness.client.login(StytchCredentials.magicLink(token: token))
            #expect(harness.transport.last("magic_links/authenticate")?.body?["code_verifier"] == nil)
            #expect(harness.client.state == .established)
        }
    }
}
