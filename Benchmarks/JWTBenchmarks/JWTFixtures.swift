import BenchmarkSupport
import Foundation
import JWTKit
import LatchkeyJSON
import LatchkeyJWT

/// A typical OpenID Connect ID token: 11 claims, the shape Auth0 and Stytch issue.
enum IDToken {
    static let issuer = "https://tenant.example.auth0.com/"
    static let audience = "client-123"
    static let hmacSecret = "a-very-long-secret-key-of-at-least-32-bytes!!"

    static func claims(now: Date = Date()) -> JSONObject {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        return [
            "iss": .string(issuer), "sub": "auth0|64f1c2a9b3e4d5f6a7b8c9d0", "aud": .string(audience),
            "iat": .number(issuedAt), "exp": .number(issuedAt + 86_400), "nonce": "n-0S6_WzA2Mj",
            "email": "jane.doe@example.com", "name": "Jane Doe", "email_verified": true,
            "auth_time": .number(issuedAt), "azp": .string(audience),
        ]
    }

    static let validation = JWTValidationOptions(issuer: issuer, audience: audience)
}

/// One algorithm's token, keys and prepared verifiers for Latchkey, raw OpenSSL and jwt-kit.
final class JWTFixture {
    let algorithm: JWSAlgorithm
    let token: String
    let publicKey: JWTKey
    /// The signing input (`header.payload`) and the decoded signature, as raw OpenSSL sees them.
    let signingInput: [UInt8]
    let rawSignature: [UInt8]
    let hmac: RawHMAC?
    let verifier: RawSignatureVerifier?
    /// Filled in by the benchmarks' async setup (jwt-kit's key collection is an actor).
    var peer: JWTKeyCollection?

    init(_ algorithm: JWSAlgorithm) {
        self.algorithm = algorithm
        do {
            let key: JWTKey = algorithm == .hs256
                ? try .hmac(Array(IDToken.hmacSecret.utf8), algorithm: .hs256, keyID: "k1")
                : try .generate(for: algorithm, keyID: "k1")
            token = try JWT.sign(IDToken.claims(), key: key)
            publicKey = key.publicKey
            let lastDot = token.utf8.lastIndex(of: UInt8(ascii: "."))!
            signingInput = Array(token.utf8[..<lastDot])
            guard let signature = Base64URL.decode(token[token.index(after: lastDot)...]) else { fixtureFailure("signature") }
            switch algorithm {
            case .hs256:
                hmac = RawHMAC(digest: "SHA256", key: Array(IDToken.hmacSecret.utf8))
                verifier = nil
                rawSignature = signature
            default:
                hmac = nil
                guard let pem = try publicKey.pem() else { fixtureFailure("no PEM") }
                let scheme: RawSignatureVerifier.Scheme = switch algorithm {
                case .rs256: .pkcs1(digest: "SHA256")
                case .ps256: .pss(digest: "SHA256")
                case .es256: .ecdsa(digest: "SHA256")
                case .es384: .ecdsa(digest: "SHA384")
                case .edDSA: .ed25519
                default: fixtureFailure("no raw baseline for \(algorithm)")
                }
                verifier = RawSignatureVerifier(publicKeyPEM: pem, scheme: scheme)
                rawSignature = [.es256, .es384].contains(algorithm) ? derECDSASignature(fromJOSE: signature) : signature
            }
        } catch {
            fixtureFailure("\(algorithm): \(error)")
        }
        guard rawVerify() else { fixtureFailure("raw OpenSSL rejects the \(algorithm) token") }
    }

    /// The raw OpenSSL check of the signature over the signing input.
    @inline(__always)
    func rawVerify() -> Bool {
        signingInput.withUnsafeBufferPointer { input in
            rawSignature.withUnsafeBufferPointer { signature in
                if let hmac { hmac.verify(input, expected: signature) } else { verifier!.verify(input, signature: signature) }
            }
        }
    }

    /// jwt-kit's collection with the same key, checked against the token once.
    func preparePeer() async {
        guard peer == nil else { return }
        let collection = JWTKeyCollection()
        do {
            if algorithm == .hs256 {
                await collection.add(hmac: HMACKey(from: IDToken.hmacSecret), digestAlgorithm: .sha256, kid: "k1")
            } else {
                try await collection.add(jwksJSON: "{\"keys\":[\(publicKey.jwk().jsonText)]}")
            }
            _ = try await collection.verify(token, as: CheckedIDTokenClaims.self)
        } catch {
            fixtureFailure("jwt-kit rejects the \(algorithm) token: \(error)")
        }
        peer = collection
    }
}

/// The ID token's claims for jwt-kit, checked as Latchkey checks them (`exp`, `aud`, `iss`).
struct CheckedIDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var name: String?
    var emailVerified: Bool?
    var authTime: Int?
    var azp: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, azp
        case emailVerified = "email_verified"
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        try aud.verifyIntendedAudience(includes: IDToken.audience)
        guard iss.value == IDToken.issuer else {
            throw JWTKit.JWTError.claimVerificationFailure(failedClaim: iss, reason: "wrong issuer")
        }
    }
}

/// The same claims with no checks: jwt-kit's closest to "signature only" (it still
/// decodes the payload).
struct UncheckedIDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var name: String?
    var emailVerified: Bool?
    var authTime: Int?
    var azp: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, azp
        case emailVerified = "email_verified"
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
