import Foundation
import LatchkeyCrypto
import LatchkeyJSON
import LatchkeyJWT

/// DPoP (RFC 9449) as the emulated tenant enforces it: proofs on `/oauth/token` (checked,
/// then the tokens bound to the key's thumbprint, `cnf.jkt`), DPoP-bound refresh tokens
/// redeemable only with a proof of the same key, and bound access tokens accepted at
/// resources (`/userinfo`) only as `Authorization: DPoP` with a proof carrying `ath`.
///
/// A client with ``Auth0Seed/requireDPoP`` ("Require Sender Constraining") gets nothing
/// without a proof; any client that sends one gets DPoP-bound tokens (`token_type: DPoP`).
/// With ``Auth0Seed/requireDPoPNonce`` every proof must carry the server's current nonce:
/// one without it is answered `use_dpop_nonce` with a `DPoP-Nonce` header.
actor Auth0DPoP {
    /// How old a proof's `iat` may be, and how far ahead of the server's clock.
    static let maximumAge: TimeInterval = 300
    static let maximumSkew: TimeInterval = 60
    /// How long one nonce is current.
    static let nonceLifetime: TimeInterval = 300
    /// The signature algorithms a proof may use (asymmetric only, RFC 9449 §4.3).
    static let algorithms: Set<JWSAlgorithm> = [.es256, .es384, .es512, .rs256, .ps256, .edDSA]

    /// Why a proof was refused.
    enum Refusal: Error, Sendable {
        case invalid(String)
        case nonceRequired
    }

    private let clock: EmulatorClock
    private let settings: Auth0Seed
    /// Bound tokens → the thumbprint of their key.
    private var boundAccessTokens: [String: String] = [:]
    private var boundRefreshTokens: [String: String] = [:]
    /// Proof `jti`s seen, until they are too old to be accepted anyway.
    private var seenIDs: [String: Date] = [:]
    private var nonce: (value: String, issuedAt: Date)?

    init(seed: Auth0Seed, clock: EmulatorClock) {
        settings = seed
        self.clock = clock
    }

    var requiresProof: Bool { settings.requireDPoP ?? false }
    private var requiresNonce: Bool { settings.requireDPoPNonce ?? false }

    // MARK: Token endpoint

    /// Checks the `DPoP` header of a token request to `url`; `nil` when there is none and
    /// the client does not require one. Throws the answer to send back.
    func tokenRequestProof(_ request: EmulatorRequest, url: String) throws -> String? {
        guard let header = request.header("dpop") else {
            guard !requiresProof else { throw Self.tokenError("DPoP proof is required for this client") }
            return nil
        }
        do throws(Refusal) { return try verify(header, method: request.method, url: url, accessToken: nil) } catch .nonceRequired {
            throw Auth0Error(
                status: 400, error: "use_dpop_nonce", description: "Authorization server requires nonce in DPoP proof",
                headers: nonceHeaders())
        } catch .invalid(let reason) {
            throw Self.tokenError(reason)
        }
    }

    /// A refresh token bound to a key is redeemed only with a proof of that key.
    func checkRefresh(_ refreshToken: String, jkt: String?) throws {
        guard let bound = boundRefreshTokens[refreshToken] else { return }
        guard let jkt else { throw Self.tokenError("DPoP proof is required: the refresh token is DPoP-bound") }
        guard bound == jkt else {
            throw Auth0Error(status: 400, error: "invalid_grant", description: "The refresh token is bound to another DPoP key.")
        }
    }

    /// Binds tokens just issued to the proof's key.
    func bind(accessToken: String, refreshToken: String?, to jkt: String) {
        boundAccessTokens[accessToken] = jkt
        if let refreshToken { boundRefreshTokens[refreshToken] = jkt }
    }

    /// The `DPoP-Nonce` header every answer carries while nonces are required (a server
    /// may hand out a new one with any answer, RFC 9449 §8.2).
    func nonceHeaders() -> [(name: String, value: String)] {
        guard requiresNonce else { return [] }
        return [("DPoP-Nonce", currentNonce())]
    }

    // MARK: Resources

    /// Checks a resource request carrying `accessToken` with the `scheme` of its
    /// `Authorization` header: a bound token needs `DPoP` and a proof of its key with
    /// `ath`; an unbound one, `Bearer`. Throws a 401 with a `WWW-Authenticate` challenge.
    func checkResource(_ request: EmulatorRequest, url: String, scheme: String, accessToken: String) throws {
        let isDPoP = scheme.lowercased() == "dpop"
        guard let bound = boundAccessTokens[accessToken] else {
            if isDPoP { throw resourceError("invalid_token", "The access token is not DPoP-bound.") }
            return
        }
        guard isDPoP else { throw resourceError("invalid_token", "The access token is DPoP-bound: use the DPoP scheme with a proof.") }
        guard let header = request.header("dpop") else { throw resourceError("invalid_dpop_proof", "DPoP proof is required.") }
        let jkt: String
        do throws(Refusal) { jkt = try verify(header, method: request.method, url: url, accessToken: accessToken) } catch .nonceRequired {
            throw resourceError("use_dpop_nonce", "Resource server requires nonce in DPoP proof")
        } catch .invalid(let reason) {
            throw resourceError("invalid_dpop_proof", reason)
        }
        guard jkt == bound else { throw resourceError("invalid_dpop_proof", "The DPoP proof's key is not the one the token is bound to.") }
    }

    /// Whether an access token is DPoP-bound (its JWT form then carries `cnf.jkt`).
    func binding(ofAccessToken token: String) -> String? { boundAccessTokens[token] }

    // MARK: Proofs

    /// Verifies one proof (RFC 9449 §4.3) and returns its key's thumbprint.
    private func verify(_ header: String, method: String, url: String, accessToken: String?) throws(Refusal) -> String {
        // Repeated header fields arrive joined with a comma, which no compact JWS contains.
        guard !header.contains(",") else { throw .invalid("more than one DPoP proof") }
        let now = clock.now
        let proof: JWT
        let jwk: JWK
        do {
            let unverified = try JWT.decode(header)
            guard unverified.header.type == "dpop+jwt" else { throw Refusal.invalid("the proof's typ is not dpop+jwt") }
            guard let alg = unverified.header.algorithm, Self.algorithms.contains(alg) else {
                throw Refusal.invalid("the proof's alg is not an asymmetric signature algorithm")
            }
            guard let object = unverified.header["jwk"]?.objectValue else { throw Refusal.invalid("the proof has no jwk") }
            jwk = try JWK(object: object)
            guard !jwk.isPrivate else { throw Refusal.invalid("the proof's jwk holds a private key") }
            var options = JWTValidationOptions(leeway: Self.maximumSkew, jws: JWSOptions(allowedAlgorithms: Self.algorithms), now: { now })
            options.requiredClaims = ["jti", "htm", "htu", "iat"]
            proof = try JWT.verify(header, keys: try JWTKey(jwk: jwk), options: options)
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw .invalid("the proof does not verify: \(error)")
        }
        let claims = proof.claims
        guard let jti = claims.jwtID, !jti.isEmpty, jti.count <= 256 else { throw .invalid("the proof's jti is missing") }
        guard claims["htm"]?.stringValue == method.uppercased() else { throw .invalid("the proof's htm is not the request's method") }
        guard let htu = claims["htu"]?.stringValue, Self.normalized(htu) == Self.normalized(url) else {
            throw .invalid("the proof's htu is not the request's URL")
        }
        guard let issuedAt = claims.issuedAt, issuedAt.timeIntervalSince(now) <= Self.maximumSkew,
            now.timeIntervalSince(issuedAt) <= Self.maximumAge
        else {
            throw .invalid("the proof's iat is outside the accepted window")
        }
        if let accessToken {
            let expected = Base64URL.encode(HashAlgorithm.sha256.hash(Array(accessToken.utf8)))
            guard claims["ath"]?.stringValue == expected else { throw .invalid("the proof's ath is not the access token's hash") }
        }
        if requiresNonce, claims["nonce"]?.stringValue != currentNonce() { throw .nonceRequired }
        seenIDs = seenIDs.filter { $0.value > now }
        guard seenIDs[jti] == nil else { throw .invalid("the proof was used before (jti replay)") }
        seenIDs[jti] = issuedAt.addingTimeInterval(Self.maximumAge + Self.maximumSkew)
        do { return try jwk.thumbprint() } catch { throw .invalid("the proof's jwk has no thumbprint") }
    }

    /// The nonce proofs must carry now: a new one every ``nonceLifetime`` of the clock.
    private func currentNonce() -> String {
        let now = clock.now
        if let nonce, now.timeIntervalSince(nonce.issuedAt) < Self.nonceLifetime, now >= nonce.issuedAt { return nonce.value }
        let fresh = (try? OpaqueToken.make(bytes: 16)) ?? UUID().uuidString
        nonce = (fresh, now)
        return fresh
    }

    /// A URL as `htu` compares (RFC 9449 §4.3: no query or fragment; scheme and host
    /// case-insensitive; a default port the same as none).
    static func normalized(_ text: String) -> String? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return nil }
        components.query = nil
        components.fragment = nil
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) { components.port = nil }
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }

    private static func tokenError(_ description: String) -> Auth0Error {
        Auth0Error(status: 400, error: "invalid_dpop_proof", description: description)
    }

    private func resourceError(_ error: String, _ description: String) -> Auth0Error {
        var answer = Auth0Error(status: 401, error: error, description: description)
        // A quoted-string of printable ASCII: a reason quoting the proof never breaks the header.
        let quoted = String(description.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" ? Character($0) : "'" })
        answer.headers = [
            ("WWW-Authenticate", #"DPoP algs="ES256 ES384 ES512 RS256 PS256 EdDSA", error="\#(error)", error_description="\#(quoted)""#)
        ]
        if error == "use_dpop_nonce" { answer.headers += nonceHeaders() }
        return answer
    }
}
