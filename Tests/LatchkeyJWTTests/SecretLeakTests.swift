import Foundation
import LatchkeyJWT
import Testing

/// Errors and descriptions must never carry a secret, private key material or a signature.
@Suite struct SecretLeakTests {
    static let secretText = "correct-horse-battery-staple-0123456789-SECRET"
    static var secret: [UInt8] { Array(secretText.utf8) }

    /// Every form in which a byte string could leak.
    static func forms(of bytes: [UInt8]) -> [String] {
        var forms = [Base64URL.encode(bytes), Data(bytes).base64EncodedString(), bytes.map { String(format: "%02x", $0) }.joined()]
        if let text = String(validating: bytes, as: UTF8.self) { forms.append(text) }
        // A distinctive slice too, in case the value is truncated when shown.
        forms += forms.map { String($0.prefix(16)) }
        return forms
    }

    static func expectClean(_ text: String, of bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for form in forms(of: bytes) where form.count >= 8 {
            #expect(!text.contains(form), "\(what) leaks \"\(form.prefix(8))…\" in: \(text)", sourceLocation: sourceLocation)
        }
    }

    static func failure(_ body: () throws -> Any) -> String {
        do {
            _ = try body()
            return ""
        } catch { return String(describing: error) + " | " + String(reflecting: error) + " | " + "\(error.localizedDescription)" }
    }

    @Test func hmacSecretNeverAppears() throws {
        let key = try JWTKey.hmac(Self.secret, keyID: "hs")
        Self.expectClean(key.description, of: Self.secret, "JWTKey.description")
        Self.expectClean(String(reflecting: key), of: Self.secret, "String(reflecting: JWTKey)")
        Self.expectClean(key.jwk().description, of: Self.secret, "public JWK description")
        Self.expectClean(key.jwk(includingPrivate: true).description, of: Self.secret, "private JWK description")
        #expect(key.jwk(includingPrivate: true).description.contains("private"))

        let token = try JWT.sign(["sub": "x", "exp": 0], key: key)
        var tampered = TokenParts(token)
        tampered.signature[0] ^= 1
        let other = try JWTKey.hmac([UInt8](repeating: 0x41, count: 32))
        var errors = [
            Self.failure { try JWT.verify(tampered.token, keys: key) },
            Self.failure { try JWT.verify(token, keys: key) },
            Self.failure { try JWT.verify(token, keys: other) },
            Self.failure { try JWT.sign(["sub": "x"], key: key, algorithm: .rs256) },
            Self.failure { try JWTKey.hmac(Array(Self.secret.prefix(20))) },
            Self.failure { try JWTKey.hmac(Self.secret, algorithm: .hs512) },
            Self.failure { try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(Base64URL.encode(Self.secret.prefix(20)))"}"#) },
            Self.failure { try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(Base64URL.encode(Self.secret))","alg":"ES256"}"#) },
        ]
        errors.append(Self.failure { try JWTKey(jwkJSON: #"{"kty":"oct","k":"\#(Self.secretText)!"}"#) })
        let set = try JWKSet(
            json: #"{"keys":[{"kty":"oct","k":"\#(Self.secretText)!"},{"kty":"oct","k":"\#(Base64URL.encode(Self.secret.prefix(10)))"}]}"#)
        errors += set.skipped.map(\.reason)
        for (index, text) in errors.enumerated() {
            #expect(!text.isEmpty, "case \(index) should fail")
            Self.expectClean(text, of: Self.secret, "error \(index)")
            Self.expectClean(text, of: Array(Self.secret.prefix(20)), "error \(index)")
            Self.expectClean(text, of: Array(Self.secret.prefix(10)), "error \(index)")
        }
    }

    @Test(arguments: [JWSAlgorithm.rs256, .es256, .es512, .edDSA])
    func privateKeyMaterialNeverAppears(algorithm: JWSAlgorithm) throws {
        let key = try TestKeys.pair(algorithm)
        let jwk = key.jwk(includingPrivate: true)
        let privateMembers = ["d", "p", "q", "dp", "dq", "qi"].compactMap { jwk.object[$0]?.stringValue.flatMap(Base64URL.decode) }
        #expect(!privateMembers.isEmpty)
        let pkcs8 = try #require(try key.pem(includingPrivate: true))
        let pemBody = pkcs8.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        var texts = [key.description, String(reflecting: key), jwk.description, String(reflecting: jwk), key.publicKey.description]
        // Errors from keys that are broken in ways that involve the private parts.
        var bent = jwk.object
        bent["x"] = try TestKeys.pair(algorithm == .edDSA ? .ed25519 : algorithm).jwk().object["x"]
        if algorithm == .rs256 { bent["qi"] = nil }
        texts.append(Self.failure { try JWTKey(jwk: JWK(object: bent)) })
        var badD = jwk.object
        badD["d"] = .string((jwk.object["d"]?.stringValue ?? "") + "!")
        texts.append(Self.failure { try JWTKey(jwk: JWK(object: badD)) })
        texts.append(Self.failure { try JWTKey(pem: pkcs8.replacingOccurrences(of: "-----END PRIVATE KEY-----", with: "-----END PUBLIC KEY-----")) })
        texts.append(Self.failure { try JWT.sign(["sub": "x"], key: key, algorithm: .hs256) })
        texts.append(Self.failure { try JWT.sign(["sub": "x"], key: key.publicKey) })
        for (index, text) in texts.enumerated() {
            for member in privateMembers { Self.expectClean(text, of: member, "text \(index)") }
            #expect(!text.contains(String(pemBody.prefix(40)).suffix(24)), "text \(index) leaks the PKCS#8 body")
        }
    }

    @Test(arguments: [JWSAlgorithm.hs256, .rs256, .es256, .edDSA])
    func signaturesNeverAppearInErrors(algorithm: JWSAlgorithm) throws {
        let key = try TestKeys.pair(algorithm)
        let token = try JWT.sign(["sub": "x", "exp": 0], key: key)
        let parts = TokenParts(token)
        let signatureText = String(token.split(separator: ".")[2])
        var cases: [String] = []
        // Wrong signature, wrong alg, expired, truncated and bent signature segments.
        var bad = parts
        bad.signature[0] ^= 1
        cases.append(Self.failure { try JWT.verify(bad.token, keys: key) })
        cases.append(Self.failure { try JWT.verify(token, keys: key) })
        cases.append(Self.failure { try JWT.verify(token + "=", keys: key) })
        cases.append(Self.failure { try JWT.verify(token + "!", keys: key) })
        cases.append(Self.failure { try JWT.verify(String(token.dropLast()), keys: key) })
        cases.append(Self.failure { try JWT.verify(token + ".x", keys: key) })
        cases.append(Self.failure { try JWT.verify(token, keys: TestKeys.pair(algorithm == .hs256 ? .hs384 : .hs256)) })
        var none = parts
        none.headerText = #"{"alg":"none"}"#
        cases.append(Self.failure { try JWT.verify(none.token, keys: key, options: JWTValidationOptions(jws: JWSOptions(allowsUnsecured: true))) })
        for (index, text) in cases.enumerated() {
            #expect(!text.isEmpty, "case \(index) should fail")
            #expect(!text.contains(String(signatureText.prefix(12))), "case \(index) echoes the signature: \(text)")
            Self.expectClean(text, of: parts.signature, "case \(index)")
        }
    }

    @Test func tokensInErrorMessagesAreNotEchoed() throws {
        // A bearer token is itself a credential: a malformed one must not be copied into logs.
        let key = try TestKeys.pair(.hs256)
        let token = try JWT.sign(["sub": "a-rather-distinctive-subject"], key: key)
        let payloadSegment = String(token.split(separator: ".")[1])
        for broken in [token + "=", " " + token, token.replacingOccurrences(of: ".", with: "..")] {
            let text = Self.failure { try JWT.verify(broken, keys: key) }
            #expect(!text.contains(payloadSegment), "\(text)")
            #expect(!text.contains("a-rather-distinctive-subject"), "\(text)")
        }
    }
}
