import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyHummingbird
import LatchkeyJSON
import LatchkeyJWT
import LatchkeyTestSupport
import Testing

/// Every refusal of the middleware over real HTTP, with the emulator issuing the tokens
/// and serving the keys: the status, the exact RFC 6750 challenge, and a body that says
/// nothing more than the error code.
@Suite struct BearerRefusalTests {
    @Test func aRequestWithoutABearerTokenGetsABareChallenge() async throws {
        try await Harness.with { harness in
            try await harness.serve(try harness.stytchVerifier()) { (url: URL) async throws in
                try await harness.client.send(url, headers: [:]).expectRefused(401, challenge: challenge(), message: "missing_token")
                // Another scheme is no bearer token at all (RFC 6750 §3.1: no error code).
                let basic = "Basic " + Data("user:password".utf8).base64EncodedString()
                try await harness.client.send(url, headers: ["Authorization": basic]).expectRefused(
                    401, challenge: challenge(), message: "missing_token")
            }
        }
    }

    @Test func aMalformedAuthorizationHeaderIsABadRequest() async throws {
        try await Harness.with { harness in
            let jwt = try await harness.tokens.stytchSessionJWT()
            try await harness.serve(try harness.stytchVerifier()) { (url: URL) async throws in
                let bad = challenge(#"error="invalid_request""#)
                for header in ["Bearer", "Bearer   ", "Bearer \(jwt) \(jwt)", "Bearer \(jwt),x", "Bearer \"\(jwt)\"", "bearer =abc"] {
                    try await harness.client.send(url, headers: ["Authorization": header]).expectRefused(
                        400, challenge: bad, message: "invalid_request")
                }
                // Two Authorization fields, written on the wire as two.
                let request =
                    "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(jwt)\r\nAuthorization: Bearer \(jwt)\r\n"
                    + "Connection: close\r\n\r\n"
                let port = UInt16(url.port ?? 80)
                let answer = String(decoding: try await onThreadOfItsOwn { try RawHTTP.exchange(port: port, Array(request.utf8)) }, as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
                #expect(answer.lowercased().contains("www-authenticate: \(bad.lowercased())"), "\(answer)")
                // The scheme's case does not matter, and one token passes.
                #expect(try await harness.client.send(url, headers: ["Authorization": "bEaReR \(jwt)"]).status == 200)
            }
        }
    }

    @Test func anExpiredTokenIsInvalidAndTheAnswerSaysNoMore() async throws {
        try await Harness.with { harness in
            let jwt = try await harness.tokens.stytchSessionJWT()
            try await harness.serve(try harness.stytchVerifier()) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: jwt).status == 200)
                // Stytch session JWTs live 5 minutes; the leeway is 60 s.
                harness.emulator.control.advanceClock(by: 300 + 61)
                let refused = try await harness.client.get(url, bearer: jwt)
                refused.expectInvalidToken()
                #expect(!refused.body.contains("exp"))
            }
        }
    }

    @Test func aTokenForAnotherAudienceOrFromAnotherIssuerIsInvalid() async throws {
        try await Harness.with { harness in
            let token = try await harness.tokens.auth0AccessToken()
            try await harness.serve(try harness.auth0Verifier()) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: token).status == 200)
            }
            try await harness.serve(try harness.auth0Verifier(audience: "https://other-api.example/")) { (url: URL) async throws in
                try await harness.client.get(url, bearer: token).expectInvalidToken()
            }
            // The same keys, but the issuer the verifier expects is another tenant's.
            try await harness.serve(try harness.auth0Verifier(domain: "other-tenant.eu.auth0.com")) { (url: URL) async throws in
                try await harness.client.get(url, bearer: token).expectInvalidToken()
            }
        }
    }

    @Test func aValidTokenWithoutTheScopeIsForbiddenNamingTheScopesNeeded() async throws {
        try await Harness.with { harness in
            let token = try await harness.tokens.auth0AccessToken(scope: "openid read:messages")
            try await harness.serve(try harness.auth0Verifier(), scopes: ["read:messages", "admin"]) { (url: URL) async throws in
                try await harness.client.get(url, bearer: token)
                    .expectRefused(
                        403, challenge: challenge(#"error="insufficient_scope", scope="admin read:messages""#), message: "insufficient_scope")
            }
            try await harness.serve(try harness.auth0Verifier(), scopes: ["read:messages"]) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: token).status == 200)
            }
        }
    }

    @Test func anUnknownKeyIDRefetchesOnceThenARotatedKeyVerifies() async throws {
        try await Harness.with { harness in
            let verifier = try harness.auth0Verifier()
            let before = try await harness.tokens.auth0AccessToken()
            try await harness.serve(verifier) { (url: URL) async throws in
                #expect(try await harness.client.get(url, bearer: before).status == 200)
                #expect(verifier.keys.fetchCount == 1)
                // A token signed by a key the issuer never published: one refetch, then refused.
                let claims = try JWT.decode(before).claims.object
                let stranger = try JWT.sign(claims, key: try JWTKey.generate(for: .rs256, keyID: "not-the-issuers-key"))
                try await harness.client.get(url, bearer: stranger).expectInvalidToken()
                #expect(verifier.keys.fetchCount == 2)
                // A flood of unknown kids refetches no more within the interval.
                for _ in 0..<3 { try await harness.client.get(url, bearer: stranger).expectInvalidToken() }
                #expect(verifier.keys.fetchCount == 2)
                // The issuer rotates; past the refetch interval the new key is fetched and verifies.
                harness.emulator.control.advanceClock(by: 61)
                _ = try await harness.emulator.control.rotateSigningKeys(.auth0, keepingPrevious: 0)
                let after = try await harness.tokens.auth0AccessToken()
                #expect(try JWT.decode(after).header.keyID != JWT.decode(before).header.keyID)
                #expect(try await harness.client.get(url, bearer: after).status == 200)
                #expect(verifier.keys.fetchCount == 3)
            }
        }
    }

    @Test func algorithmConfusionIsRefused() async throws {
        try await Harness.with { harness in
            let real = try JWT.decode(try await harness.tokens.auth0AccessToken())
            let kid = try #require(real.header.keyID)
            // The public key set, as anyone can fetch it, used as an HMAC secret.
            let published = try await harness.client.send(try harness.tokens.auth0.jwksURL, headers: [:]).body
            let hmac = try JWTKey.hmac(Array(published.utf8), algorithm: .hs256)
            let confused = try JWT.sign(real.claims.object, key: hmac, algorithm: .hs256, extraHeader: ["kid": .string(kid)])
            let header = Base64URL.encode(JSONValue.object(["alg": "none", "typ": "JWT", "kid": .string(kid)]).jsonBytes)
            let unsigned = header + "." + Base64URL.encode(real.claims.payload) + "."
            // Auth0's verifier pins RS256; Stytch's lets the key decide: both refuse.
            let stytch = try await harness.tokens.stytchSessionJWT()
            let stytchKeys = try await harness.client.send(try harness.tokens.stytch.jwksURL, headers: [:]).body
            let stytchReal = try JWT.decode(stytch)
            let stytchConfused = try JWT.sign(
                stytchReal.claims.object, key: try JWTKey.hmac(Array(stytchKeys.utf8), algorithm: .hs256),
                algorithm: .hs256, extraHeader: ["kid": .string(try #require(stytchReal.header.keyID))])
            try await harness.serve(try harness.auth0Verifier()) { (url: URL) async throws in
                try await harness.client.get(url, bearer: confused).expectInvalidToken()
                try await harness.client.get(url, bearer: unsigned).expectInvalidToken()
            }
            try await harness.serve(try harness.stytchVerifier()) { (url: URL) async throws in
                try await harness.client.get(url, bearer: stytchConfused).expectInvalidToken()
                #expect(try await harness.client.get(url, bearer: stytch).status == 200)
            }
        }
    }

    @Test func unreachableKeysAreServiceUnavailableNotAnInvalidToken() async throws {
        try await Harness.with { harness in
            let token = try await harness.tokens.auth0AccessToken()
            let auth0 = try harness.tokens.auth0
            // A port nothing listens on (connections refused): the keys cannot be had, the token may be fine.
            let dead = try #require(URL(string: "http://127.0.0.1:1/"))
            let verifier = try BearerTokenVerifier.auth0(
                domain: auth0.domain, audience: EmulatorTokens.api, baseURL: dead,
                transport: harness.transport, clock: harness.clock)
            try await harness.serve(verifier) { (url: URL) async throws in
                try await harness.client.get(url, bearer: token).expectRefused(503, challenge: nil, message: "temporarily_unavailable")
            }
        }
    }

    @Test func refusalsLogTheReasonAndNeverTheToken() async throws {
        try await Harness.with { harness in
            let jwt = try await harness.tokens.stytchSessionJWT()
            let logs = LogCapture()
            try await harness.serve(try harness.stytchVerifier(), logger: logs.logger) { (url: URL) async throws in
                harness.emulator.control.advanceClock(by: 400)
                try await harness.client.get(url, bearer: jwt).expectInvalidToken()
            }
            #expect(logs.all.contains { $0.contains("bearer token refused") && $0.contains("reason=expired") }, "\(logs.all)")
            let signature = try #require(jwt.split(separator: ".").last)
            #expect(!logs.all.contains { $0.contains(signature) || $0.contains(jwt) })
        }
    }
}
