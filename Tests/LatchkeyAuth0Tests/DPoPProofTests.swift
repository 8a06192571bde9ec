import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyCrypto
import LatchkeyJSON
import LatchkeyJWT
import LatchkeySecrets
import Synchronization
import Testing

/// The proofs the adapter signs, read off the wire of a scripted tenant: their header and
/// claims as RFC 9449 §4.2 writes them, and the nonce challenge answered once, never more.
@Suite("Auth0 DPoP proofs")
struct DPoPProofTests {
    static let base = URL(string: "https://tenant.example.com/")!

    /// A tenant answering every request with `answer`, keeping the requests.
    final class ScriptedTenant: HTTPTransport {
        let requests = Mutex<[TransportRequest]>([])
        let answer: @Sendable (TransportRequest) -> TransportResponse

        init(_ answer: @escaping @Sendable (TransportRequest) -> TransportResponse) { self.answer = answer }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            requests.withLock { $0.append(request) }
            return answer(request)
        }

        var sent: [TransportRequest] { requests.withLock { $0 } }
    }

    static func provider(_ tenant: ScriptedTenant, store: any SecretStore) throws -> Auth0Provider {
        Auth0Provider(
            configuration: try Auth0Configuration(domain: "tenant.example.com", clientID: "client", baseURL: base, dpop: true), transport: tenant,
            clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)), keyStore: store)
    }

    static let password = Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1")

    static func claims(of proof: String?) throws -> (header: JSONObject, claims: JSONObject) {
        let jwt = try JWT.decode(try #require(proof))
        return (jwt.header.object, jwt.claims.object)
    }

    @Test func proofsCarryWhatTheRFCAsks() async throws {
        let tenant = ScriptedTenant { _ in
            TransportResponse(status: 200, body: Data(#"{"access_token":"at-1","token_type":"DPoP","expires_in":86400,"refresh_token":"rt-1"}"#.utf8))
        }
        let provider = try Self.provider(tenant, store: try MemorySecretStore(namespace: "proofs"))
        let session = try await provider.login(Self.password, sessionDuration: nil, pending: nil)
        #expect(session.tokens.attributes["token_type"] == "DPoP")
        let tokenRequest = try #require(tenant.sent.first)
        #expect(tokenRequest.headers["Authorization"] == nil)
        let (header, claims) = try Self.claims(of: tokenRequest.headers["DPoP"])
        #expect(header["typ"]?.stringValue == "dpop+jwt")
        #expect(header["alg"]?.stringValue == "ES256")
        let jwk = try #require(header["jwk"]?.objectValue)
        #expect(Set(jwk.members.map(\.name)) == ["kty", "crv", "x", "y"], "the public key only")
        #expect(claims["htm"]?.stringValue == "POST")
        #expect(claims["htu"]?.stringValue == "https://tenant.example.com/oauth/token")
        #expect(claims["iat"]?.numberValue == 1_800_000_000)
        #expect(claims["ath"] == nil && claims["nonce"] == nil)
        // The proof verifies with the key it names.
        _ = try JWT.verify(
            try #require(tokenRequest.headers["DPoP"]), keys: try JWTKey(jwk: JWK(object: jwk)),
            options: JWTValidationOptions(now: { Date(timeIntervalSince1970: 1_800_000_000) }))

        // An app request: the DPoP scheme, and a proof without the query or fragment, with ath.
        let request = TransportRequest(method: "patch", url: URL(string: "https://api.example.com/items/7?page=2#top")!)
        let prepared = try await provider.prepare(request, with: session.tokens)
        #expect(prepared.headers["Authorization"] == "DPoP at-1")
        let first = try Self.claims(of: prepared.headers["DPoP"]).claims
        #expect(first["htm"]?.stringValue == "PATCH")
        #expect(first["htu"]?.stringValue == "https://api.example.com/items/7")
        #expect(first["ath"]?.stringValue == Base64URL.encode(HashAlgorithm.sha256.hash(Array("at-1".utf8))))
        let again = try Self.claims(of: try await provider.prepare(request, with: session.tokens).headers["DPoP"]).claims
        #expect(again["jti"] != first["jti"], "a fresh jti for every proof")
        // A Bearer token goes as before, without a proof.
        var bearer = session.tokens
        bearer.attributes["token_type"] = "Bearer"
        let plain = try await provider.prepare(request, with: bearer)
        #expect(plain.headers["Authorization"] == "Bearer at-1")
        #expect(plain.headers["DPoP"] == nil)
    }

    @Test func aSignedRequestIsNeverResentWithTheSameProof() async throws {
        let tenant = ScriptedTenant { request in
            request.method == "POST"
                ? TransportResponse(status: 200, body: Data(#"{"access_token":"at-1","token_type":"DPoP","expires_in":86400}"#.utf8))
                : TransportResponse(status: 503)
        }
        // A retrying transport, as the registry builds by default, with short waits.
        let retrying = RetryingTransport(tenant, policy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        let provider = Auth0Provider(
            configuration: try Auth0Configuration(domain: "tenant.example.com", clientID: "client", baseURL: Self.base, dpop: true),
            transport: retrying, clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)),
            keyStore: try MemorySecretStore(namespace: "replay"))
        let session = try await provider.login(Self.password, sessionDuration: nil, pending: nil)
        let error = await authError { _ = try await provider.validate(session) }
        #expect(error?.code == .transient)
        #expect(tenant.sent.filter { $0.method == "GET" }.count == 1, "a 503 is not answered by replaying the proof")
        let prepared = try await provider.prepare(TransportRequest(url: URL(string: "https://api.example.com/items")!), with: session.tokens)
        #expect(!prepared.isIdempotent)
    }

    @Test func aNonceChallengeIsAnsweredOnceAndNeverAgain() async throws {
        let tenant = ScriptedTenant { _ in
            TransportResponse(
                status: 400, headers: ["DPoP-Nonce": "server-nonce-1"],
                body: Data(#"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce in DPoP proof"}"#.utf8))
        }
        let provider = try Self.provider(tenant, store: try MemorySecretStore(namespace: "nonce"))
        let error = await authError { _ = try await provider.login(Self.password, sessionDuration: nil, pending: nil) }
        #expect(error?.providerCode == "use_dpop_nonce")
        #expect(tenant.sent.count == 2, "one retry with the nonce, no loop")
        #expect(try Self.claims(of: tenant.sent[0].headers["DPoP"]).claims["nonce"] == nil)
        #expect(try Self.claims(of: tenant.sent[1].headers["DPoP"]).claims["nonce"]?.stringValue == "server-nonce-1")
    }

    @Test func aBoundTokenWithoutItsKeyPairIsNotSent() async throws {
        let tenant = ScriptedTenant { _ in TransportResponse(status: 200) }
        let provider = try Self.provider(tenant, store: try MemorySecretStore(namespace: "nokey"))
        let tokens = SessionTokens(accessToken: "at-1", refreshToken: "rt-1", attributes: ["token_type": "DPoP"])
        let error = await authError { _ = try await provider.prepare(TransportRequest(url: Self.base), with: tokens) }
        #expect(error?.providerCode == "dpop_key_missing")
        let renewal = await authError {
            _ = try await provider.prepareRenewal(RenewalRequest(reason: .expiring), current: AuthenticatedSession(tokens: tokens))
        }
        #expect(renewal?.code == .unrecoverable)
        #expect(tenant.sent.isEmpty)
    }

    @Test func anUnknownTokenTypeIsStillRefused() async throws {
        let tenant = ScriptedTenant { _ in
            TransportResponse(status: 200, body: Data(#"{"access_token":"at-1","token_type":"MAC","expires_in":86400}"#.utf8))
        }
        let provider = try Self.provider(tenant, store: try MemorySecretStore(namespace: "mac"))
        let error = await authError { _ = try await provider.login(Self.password, sessionDuration: nil, pending: nil) }
        #expect(error?.code == .transient)
    }
}
