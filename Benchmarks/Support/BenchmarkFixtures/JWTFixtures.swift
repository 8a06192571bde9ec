import Foundation
public import JWTKit
public import LatchkeyJSON
public import LatchkeyJWT

/// A typical OpenID Connect ID token: 11 claims, the shape Auth0 and Stytch issue.
public enum IDToken {
    public static let issuer = "https://tenant.example.auth0.com/"
    public static let audience = "client-123"
    public static let hmacSecret = "a-very-long-secret-key-of-at-least-32-bytes!!"

    /// Issued at a fixed instant and valid for ten years from it, so every process signs
    /// the same bytes: RSA and HMAC signatures, and so the instruction counts, repeat.
    public static let issuedAt: Double = 1_763_000_000

    public static func claims() -> JSONObject {
        [
            "iss": .string(issuer), "sub": "auth0|64f1c2a9b3e4d5f6a7b8c9d0", "aud": .string(audience),
            "iat": .number(issuedAt), "exp": .number(issuedAt + 315_360_000), "nonce": "n-0S6_WzA2Mj",
            "email": "jane.doe@example.com", "name": "Jane Doe", "email_verified": true,
            "auth_time": .number(issuedAt), "azp": .string(audience),
        ]
    }

    public static let validation = JWTValidationOptions(issuer: issuer, audience: audience)
}

/// One algorithm's token, keys and prepared verifiers for Latchkey, its raw primitive and jwt-kit.
public final class JWTFixture {
    public let algorithm: JWSAlgorithm
    public let token: String
    public let publicKey: JWTKey
    /// The signing input (`header.payload`) and the decoded signature, as raw OpenSSL sees them.
    public let signingInput: [UInt8]
    public let rawSignature: [UInt8]
    public let hmac: RawHMAC?
    public let verifier: RawSignatureVerifier?
    /// ES384 and EdDSA: Latchkey verifies them on swift-crypto's BoringSSL, their limit.
    public let boringSSL: RawBoringSSLVerifier?
    /// The raw primitive the row's limit is: "OpenSSL", or "BoringSSL" for ES384 and EdDSA.
    public var limitLabel: String { boringSSL == nil ? "OpenSSL" : "BoringSSL" }
    /// Filled in by the benchmarks' async setup (jwt-kit's key collection is an actor).
    public var peer: JWTKeyCollection?

    public init(_ algorithm: JWSAlgorithm) {
        self.algorithm = algorithm
        do {
            let key: JWTKey =
                switch algorithm {
                case .hs256: try .hmac(Array(IDToken.hmacSecret.utf8), algorithm: .hs256, keyID: "k1")
                // The same RSA key in every process (RFC 7515's), so instruction counts repeat:
                // a generated one would put a random prime search into each count.
                case .rs256, .ps256: try JWTKey(jwkJSON: rfc7515RSAKey(algorithm: algorithm))
                default: try .generate(for: algorithm, keyID: "k1")
                }
            token = try JWT.sign(IDToken.claims(), key: key)
            publicKey = key.publicKey
            let lastDot = token.utf8.lastIndex(of: UInt8(ascii: "."))!
            signingInput = Array(token.utf8[..<lastDot])
            guard let signature = Base64URL.decode(token[token.index(after: lastDot)...]) else { fixtureFailure("signature") }
            switch algorithm {
            case .hs256:
                hmac = RawHMAC(key: Array(IDToken.hmacSecret.utf8))
                verifier = nil
                boringSSL = nil
                rawSignature = signature
            case .es384:
                hmac = nil
                verifier = nil
                guard let pem = try publicKey.pem() else { fixtureFailure("no PEM") }
                boringSSL = try RawBoringSSLVerifier(p384PEM: pem)
                rawSignature = signature
            case .edDSA:
                hmac = nil
                verifier = nil
                guard let x = publicKey.jwk().object["x"]?.stringValue, let raw = Base64URL.decode(x) else { fixtureFailure("no Ed25519 x") }
                boringSSL = try RawBoringSSLVerifier(ed25519Raw: raw)
                rawSignature = signature
            default:
                hmac = nil
                boringSSL = nil
                guard let pem = try publicKey.pem() else { fixtureFailure("no PEM") }
                let scheme: RawSignatureVerifier.Scheme =
                    switch algorithm {
                    case .rs256: .pkcs1(digest: "SHA256")
                    case .ps256: .pss(digest: "SHA256")
                    case .es256: .ecdsa(digest: "SHA256")
                    default: fixtureFailure("no raw baseline for \(algorithm)")
                    }
                verifier = RawSignatureVerifier(publicKeyPEM: pem, scheme: scheme)
                rawSignature = algorithm == .es256 ? derECDSASignature(fromJOSE: signature) : signature
            }
        } catch {
            fixtureFailure("\(algorithm): \(error)")
        }
        guard rawVerify() else { fixtureFailure("raw \(limitLabel) rejects the \(algorithm) token") }
    }

    /// The raw primitive's check of the signature over the signing input.
    @inline(__always)
    public func rawVerify() -> Bool {
        signingInput.withUnsafeBufferPointer { input in
            rawSignature.withUnsafeBufferPointer { signature in
                if let hmac {
                    hmac.verify(input, expected: signature)
                } else if let boringSSL {
                    boringSSL.verify(input, signature: signature)
                } else {
                    verifier!.verify(input, signature: signature)
                }
            }
        }
    }

    /// jwt-kit's collection with the same key, checked against the token once.
    public func preparePeer() async {
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
public struct CheckedIDTokenClaims: JWTPayload {
    public var iss: IssuerClaim
    public var sub: SubjectClaim
    public var aud: AudienceClaim
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    public var nonce: String?
    public var email: String?
    public var name: String?
    public var emailVerified: Bool?
    public var authTime: Int?
    public var azp: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, azp
        case emailVerified = "email_verified"
        case authTime = "auth_time"
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        try aud.verifyIntendedAudience(includes: IDToken.audience)
        guard iss.value == IDToken.issuer else {
            throw JWTKit.JWTError.claimVerificationFailure(failedClaim: iss, reason: "wrong issuer")
        }
    }
}

/// The same claims with no checks: jwt-kit's closest to "signature only" (it still
/// decodes the payload).
public struct UncheckedIDTokenClaims: JWTPayload {
    public var iss: IssuerClaim
    public var sub: SubjectClaim
    public var aud: AudienceClaim
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    public var nonce: String?
    public var email: String?
    public var name: String?
    public var emailVerified: Bool?
    public var authTime: Int?
    public var azp: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, azp
        case emailVerified = "email_verified"
        case authTime = "auth_time"
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The RSA private key of RFC 7515, Appendix A.2 (a published example key, never a
/// secret), as a JWK for `algorithm` with the fixture's kid.
func rfc7515RSAKey(algorithm: JWSAlgorithm) -> String {
    #"{"alg":"\#(algorithm.rawValue)","kid":"k1","kty":"RSA","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB","d":"Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ","p":"4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc","q":"uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc","dp":"BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0","dq":"h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU","qi":"IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U"}"#
}
