import Foundation
import LatchkeyCrypto
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// DPoP (RFC 9449) as the emulated tenant enforces it, over real HTTP: proofs checked on
/// `/oauth/token`, tokens bound to the key (`token_type: DPoP`, `cnf.jkt`), bound refresh
/// tokens redeemable with the same key only, `/userinfo` only with `Authorization: DPoP`
/// and a proof carrying `ath`, and the `use_dpop_nonce` dance.
@Suite struct Auth0DPoPEmulatorTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    let http = EmulatorHTTP.shared

    /// A client's key pair and the proofs it signs, built here from the RFC rather than
    /// taken from the adapter, so the emulator is held to the RFC's text.
    struct ProofKey {
        let key: JWTKey
        let jwk: JSONObject
        let jkt: String

        init() throws {
            key = try JWTKey.generate(for: .es256)
            var members = JSONObject()
            for name in ["kty", "crv", "x", "y"] { members[name] = key.jwk().object[name] }
            jwk = members
            jkt = try key.jwk().thumbprint()
        }

        func proof(
            _ method: String, _ url: URL, now: Date, accessToken: String? = nil, nonce: String? = nil, jti: String = UUID().uuidString,
            header: JSONObject? = nil, edit: (inout JSONObject) -> Void = { _ in }
        ) throws -> String {
            var claims: JSONObject = [
                "jti": .string(jti), "htm": .string(method), "htu": .string(url.absoluteString),
                "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            ]
            if let accessToken { claims["ath"] = .string(Base64URL.encode(HashAlgorithm.sha256.hash(Array(accessToken.utf8)))) }
            if let nonce { claims["nonce"] = .string(nonce) }
            edit(&claims)
            return try JWT.sign(claims, key: key, algorithm: .es256, extraHeader: header ?? ["typ": "dpop+jwt", "jwk": .object(jwk)])
        }
    }

    static var requiring: Auth0Seed {
        var seed = Auth0Seed.standard
        seed.requireDPoP = true
        return seed
    }

    private func withAuth0(_ seed: Auth0Seed = requiring, _ body: (Emulator, Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: seed), clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.auth0))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func tokenURL(_ auth0: Auth0Endpoint) -> URL { auth0.baseURL.appending(path: "oauth/token") }
    private func userInfoURL(_ auth0: Auth0Endpoint) -> URL { auth0.baseURL.appending(path: "userinfo") }

    private func login(_ auth0: Auth0Endpoint, proof: String?, audience: String? = nil) async throws -> EmulatorHTTP.Reply {
        var fields = [
            ("grant_type", "http://auth0.com/oauth/grant-type/password-realm"), ("client_id", auth0.clientID),
            ("username", "alice@example.com"), ("password", "alice-password-1"), ("realm", auth0.connection),
            ("scope", "openid profile email offline_access"),
        ]
        if let audience { fields.append(("audience", audience)) }
        return try await http.send("POST", tokenURL(auth0), headers: proof.map { ["DPoP": $0] } ?? [:], form: fields)
    }

    private func refresh(_ auth0: Auth0Endpoint, _ refreshToken: String, proof: String?) async throws -> EmulatorHTTP.Reply {
        try await http.send(
            "POST", tokenURL(auth0), headers: proof.map { ["DPoP": $0] } ?? [:],
            form: [("grant_type", "refresh_token"), ("client_id", auth0.clientID), ("refresh_token", refreshToken)])
    }

    @Test func aClientThatRequiresDPoPRefusesATokenRequestWithoutAProof() async throws {
        try await withAuth0 { _, auth0 in
            let reply = try await login(auth0, proof: nil)
            #expect(reply.status == 400)
            #expect(try reply.object()["error"]?.stringValue == "invalid_dpop_proof")
        }
    }

    @Test func aProofGetsTokensBoundToItsKey() async throws {
        try await withAuth0 { emulator, auth0 in
            let key = try ProofKey()
            let reply = try await login(
                auth0, proof: key.proof("POST", tokenURL(auth0), now: emulator.control.now), audience: "https://api.example.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.object()
            #expect(body["token_type"]?.stringValue == "DPoP")
            let accessToken = try JWT.decode(try #require(body["access_token"]?.stringValue))
            #expect(accessToken.claims["cnf"]?.objectValue?["jkt"]?.stringValue == key.jkt)
        }
    }

    @Test func withoutTheSettingAnUnsignedRequestStillGetsBearerTokens() async throws {
        try await withAuth0(.standard) { _, auth0 in
            let reply = try await login(auth0, proof: nil)
            #expect(reply.status == 200)
            #expect(try reply.object()["token_type"]?.stringValue == "Bearer")
        }
    }

    @Test func aBoundRefreshTokenIsRedeemedOnlyWithAProofOfItsKey() async throws {
        try await withAuth0 { emulator, auth0 in
            let key = try ProofKey()
            let now = emulator.control.now
            let first = try await login(auth0, proof: key.proof("POST", tokenURL(auth0), now: now)).object()
            let refreshToken = try #require(first["refresh_token"]?.stringValue)
            // The old adapter: no proof at renewal.
            let unsigned = try await refresh(auth0, refreshToken, proof: nil)
            #expect(unsigned.status == 400)
            #expect(try unsigned.object()["error"]?.stringValue == "invalid_dpop_proof")
            let stranger = try await refresh(auth0, refreshToken, proof: ProofKey().proof("POST", tokenURL(auth0), now: now))
            #expect(stranger.status == 400)
            #expect(try stranger.object()["error"]?.stringValue == "invalid_grant")
            let renewed = try await refresh(auth0, refreshToken, proof: key.proof("POST", tokenURL(auth0), now: now))
            #expect(renewed.status == 200, "\(renewed.text)")
            #expect(try renewed.object()["token_type"]?.stringValue == "DPoP")
            // The rotated token is bound too.
            let rotated = try #require(try renewed.object()["refresh_token"]?.stringValue)
            #expect(try await refresh(auth0, rotated, proof: nil).status == 400)
        }
    }

    @Test func userinfoTakesABoundTokenOnlyWithTheDPoPSchemeAndAProofOfItsKey() async throws {
        try await withAuth0 { emulator, auth0 in
            let key = try ProofKey()
            let now = emulator.control.now
            let body = try await login(auth0, proof: key.proof("POST", tokenURL(auth0), now: now)).object()
            let accessToken = try #require(body["access_token"]?.stringValue)
            let url = userInfoURL(auth0)
            let bearer = try await http.send("GET", url, headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(bearer.status == 401)
            #expect(bearer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)
            let noProof = try await http.send("GET", url, headers: ["Authorization": "DPoP \(accessToken)"])
            #expect(noProof.status == 401)
            #expect(noProof.header("WWW-Authenticate")?.contains(#"error="invalid_dpop_proof""#) == true)
            let noHash = try await http.send("GET", url, headers: ["Authorization": "DPoP \(accessToken)", "DPoP": key.proof("GET", url, now: now)])
            #expect(noHash.status == 401)
            let otherKey = try await http.send(
                "GET", url,
                headers: [
                    "Authorization": "DPoP \(accessToken)",
                    "DPoP": ProofKey().proof("GET", url, now: now, accessToken: accessToken),
                ])
            #expect(otherKey.status == 401)
            let good = try await http.send(
                "GET", url,
                headers: [
                    "Authorization": "DPoP \(accessToken)",
                    "DPoP": key.proof("GET", url, now: now, accessToken: accessToken),
                ])
            #expect(good.status == 200, "\(good.text)")
            #expect(try good.object()["sub"]?.stringValue == "auth0|alice")
        }
    }

    @Test func proofsAreCheckedAsTheRFCSays() async throws {
        try await withAuth0 { emulator, auth0 in
            let key = try ProofKey()
            let now = emulator.control.now
            let url = tokenURL(auth0)
            let secret = try JWTKey.generate(for: .hs256)
            let refused: [(String, String)] = [
                ("typ", try key.proof("POST", url, now: now, header: ["typ": "JWT", "jwk": .object(key.jwk)])),
                ("no jwk", try key.proof("POST", url, now: now, header: ["typ": "dpop+jwt"])),
                (
                    "private jwk",
                    try key.proof("POST", url, now: now, header: ["typ": "dpop+jwt", "jwk": .object(key.key.jwk(includingPrivate: true).object)])
                ),
                ("htm", try key.proof("GET", url, now: now)),
                ("htu", try key.proof("POST", auth0.baseURL.appending(path: "oauth/revoke"), now: now)),
                ("old iat", try key.proof("POST", url, now: now.addingTimeInterval(-301))),
                ("future iat", try key.proof("POST", url, now: now.addingTimeInterval(120))),
                ("no jti", try key.proof("POST", url, now: now) { $0["jti"] = nil }),
                ("another key's jwk", try key.proof("POST", url, now: now, header: ["typ": "dpop+jwt", "jwk": .object(ProofKey().jwk)])),
                (
                    "symmetric",
                    try JWT.sign(
                        ["jti": "j", "htm": "POST", "htu": .string(url.absoluteString), "iat": .number(now.timeIntervalSince1970)],
                        key: secret, extraHeader: ["typ": "dpop+jwt", "jwk": .object(secret.jwk(includingPrivate: true).object)])
                ),
            ]
            for (what, proof) in refused {
                let reply = try await login(auth0, proof: proof)
                #expect(reply.status == 400, "\(what)")
                #expect(try reply.object()["error"]?.stringValue == "invalid_dpop_proof", "\(what)")
            }
            // A proof passes once: its jti is remembered.
            let proof = try key.proof("POST", url, now: now, jti: "used-once")
            #expect(try await login(auth0, proof: proof).status == 200)
            let replay = try await login(auth0, proof: proof)
            #expect(replay.status == 400)
            #expect(replay.text.contains("replay"))
        }
    }

    @Test func aNonceIsDemandedAtTheTokenEndpointAndTheResourceAndChanges() async throws {
        var seed = Self.requiring
        seed.requireDPoPNonce = true
        try await withAuth0(seed) { emulator, auth0 in
            let key = try ProofKey()
            let challenge = try await login(auth0, proof: key.proof("POST", tokenURL(auth0), now: emulator.control.now))
            #expect(challenge.status == 400)
            #expect(try challenge.object()["error"]?.stringValue == "use_dpop_nonce")
            let nonce = try #require(challenge.header("DPoP-Nonce"))
            let answered = try await login(auth0, proof: key.proof("POST", tokenURL(auth0), now: emulator.control.now, nonce: nonce))
            #expect(answered.status == 200, "\(answered.text)")
            #expect(answered.header("DPoP-Nonce") == nonce)
            let accessToken = try #require(try answered.object()["access_token"]?.stringValue)
            // Five minutes on, the nonce has changed: the resource asks for the new one.
            emulator.control.advanceClock(by: 300)
            let url = userInfoURL(auth0)
            let stale = try await http.send(
                "GET", url,
                headers: [
                    "Authorization": "DPoP \(accessToken)",
                    "DPoP": key.proof("GET", url, now: emulator.control.now, accessToken: accessToken, nonce: nonce),
                ])
            #expect(stale.status == 401)
            #expect(stale.header("WWW-Authenticate")?.contains(#"error="use_dpop_nonce""#) == true)
            let fresh = try #require(stale.header("DPoP-Nonce"))
            #expect(fresh != nonce)
            let good = try await http.send(
                "GET", url,
                headers: [
                    "Authorization": "DPoP \(accessToken)",
                    "DPoP": key.proof("GET", url, now: emulator.control.now, accessToken: accessToken, nonce: fresh),
                ])
            #expect(good.status == 200, "\(good.text)")
        }
    }
}
