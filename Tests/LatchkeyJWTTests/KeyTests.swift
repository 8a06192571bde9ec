import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Keys from JWK and PEM, usage restrictions, and invalid key material.
@Suite struct KeyTests {
    static let claims: JSONObject = ["sub": "key-test"]

    // MARK: JWK

    @Test(arguments: JWSAlgorithm.signing)
    func privateJWKRoundTripSignsAndVerifies(algorithm: JWSAlgorithm) throws {
        let original = try TestKeys.pair(algorithm)
        let privateJWK = original.jwk(includingPrivate: true)
        #expect(privateJWK.isPrivate)
        #expect(privateJWK.keyID == original.keyID)
        #expect(privateJWK.algorithm == algorithm.rawValue)
        let rebuilt = try JWTKey(jwk: privateJWK)
        #expect(rebuilt.canSign)
        #expect(rebuilt.allowedAlgorithms == original.allowedAlgorithms)
        // Signed by the rebuilt key, verified by the original, and the other way round.
        _ = try JWT.verify(JWT.sign(Self.claims, key: rebuilt), keys: original.publicKey)
        _ = try JWT.verify(JWT.sign(Self.claims, key: original), keys: rebuilt.publicKey)
        // Through JSON text as well.
        let fromText = try JWTKey(jwkJSON: privateJWK.jsonText)
        _ = try JWT.verify(JWT.sign(Self.claims, key: fromText), keys: original)
    }

    @Test(arguments: JWSAlgorithm.signing)
    func publicJWKRoundTripVerifiesOnly(algorithm: JWSAlgorithm) throws {
        let original = try TestKeys.pair(algorithm)
        let publicJWK = original.jwk()
        #expect(!publicJWK.isPrivate)
        if algorithm.rawValue.hasPrefix("HS") {
            // A secret's public JWK has no "k" at all, so it is not a usable key.
            #expect(publicJWK.keyType == "oct")
            #expect(publicJWK.object["k"] == nil)
            expectJWTError(.invalidKey) { try JWTKey(jwk: publicJWK) }
            return
        }
        let rebuilt = try JWTKey(jwk: publicJWK)
        _ = try JWT.verify(JWT.sign(Self.claims, key: original), keys: rebuilt)
        #expect(publicJWK.object["d"] == nil)
        #expect(!rebuilt.canSign)
        expectJWTError(.keyUsageNotAllowed) { try JWT.sign(Self.claims, key: rebuilt) }
        // publicJWK drops every private member of a private JWK.
        let stripped = original.jwk(includingPrivate: true).publicJWK
        for member in ["d", "p", "q", "dp", "dq", "qi"] { #expect(stripped.object[member] == nil) }
        #expect(!stripped.isPrivate)
        #expect(try JWTKey(jwk: stripped).canSign == false)
    }

    @Test func rsaJWKMembersAreTheRFCShapes() throws {
        let key = try TestKeys.pair(.rs256)
        let jwk = key.jwk(includingPrivate: true)
        #expect(jwk.keyType == "RSA")
        #expect(jwk.object["e"] == "AQAB")
        #expect(jwk.use == "sig")
        let n = try #require(jwk.object["n"]?.stringValue.flatMap(Base64URL.decode))
        #expect(n.count == 256)
        #expect(n.first != 0, "n has no leading zero octet (RFC 7518 §6.3.1.1)")
        let ec = try TestKeys.pair(.es512).jwk(includingPrivate: true)
        #expect(ec.curve == "P-521")
        for member in ["x", "y", "d"] {
            #expect(ec.object[member]?.stringValue.flatMap(Base64URL.decode)?.count == 66, "\(member) is the full 66 octets")
        }
        let okp = try TestKeys.pair(.edDSA).jwk(includingPrivate: true)
        #expect(okp.keyType == "OKP")
        #expect(okp.curve == "Ed25519")
    }

    @Test func hmacKeyFromJWK() throws {
        let secret = [UInt8](repeating: 0x42, count: 48)
        let key = try JWTKey(jwkJSON: #"{"kty":"oct","kid":"s1","k":"\#(Base64URL.encode(secret))"}"#)
        #expect(key.keyID == "s1")
        #expect(key.allowedAlgorithms == [.hs256, .hs384])
        let token = try JWT.sign(Self.claims, key: JWTKey.hmac(secret, algorithm: .hs384))
        _ = try JWT.verify(token, keys: key)
        #expect(key.jwk(includingPrivate: true).object["k"]?.stringValue == Base64URL.encode(secret))
    }

    @Test func jwkUseEncDoesNotVerify() throws {
        let signer = try TestKeys.pair(.rs256)
        let token = try JWT.sign(Self.claims, key: signer)
        var jwk = signer.jwk().object
        jwk["use"] = "enc"
        let encKey = try JWTKey(jwk: JWK(object: jwk))
        #expect(!encKey.canVerify)
        expectJWTError(.keyUsageNotAllowed) { try JWT.verify(token, keys: encKey) }
        // The same for a secret.
        let secret = [UInt8](repeating: 1, count: 32)
        let hs = try JWT.sign(Self.claims, key: JWTKey.hmac(secret))
        let encSecret = try JWTKey(jwkJSON: #"{"kty":"oct","use":"enc","k":"\#(Base64URL.encode(secret))"}"#)
        expectJWTError(.keyUsageNotAllowed) { try JWT.verify(hs, keys: encSecret) }
        // And a private key marked "enc" cannot sign either.
        var privateJWK = signer.jwk(includingPrivate: true).object
        privateJWK["use"] = "enc"
        expectJWTError(.keyUsageNotAllowed) { try JWT.sign(Self.claims, key: JWTKey(jwk: JWK(object: privateJWK))) }
    }

    @Test(arguments: [["encrypt"], ["encrypt", "decrypt"], ["sign"], ["wrapKey"], [String]()])
    func keyOpsWithoutVerifyDoNotVerify(ops: [String]) throws {
        let signer = try TestKeys.pair(.es256)
        let token = try JWT.sign(Self.claims, key: signer)
        var jwk = signer.jwk().object
        jwk["use"] = nil
        jwk["key_ops"] = .array(ops.map { .string($0) })
        let key = try JWTKey(jwk: JWK(object: jwk))
        #expect(!key.canVerify)
        expectJWTError(.keyUsageNotAllowed) { try JWT.verify(token, keys: key) }
    }

    @Test func keyOpsWithVerifyVerifiesAndSignNeedsSign() throws {
        let signer = try TestKeys.pair(.es256)
        let token = try JWT.sign(Self.claims, key: signer)
        var jwk = signer.jwk(includingPrivate: true).object
        jwk["use"] = nil
        jwk["key_ops"] = ["verify"]
        let verifyOnly = try JWTKey(jwk: JWK(object: jwk))
        _ = try JWT.verify(token, keys: verifyOnly)
        expectJWTError(.keyUsageNotAllowed) { try JWT.sign(Self.claims, key: verifyOnly) }
        jwk["key_ops"] = ["sign", "verify"]
        _ = try JWT.verify(JWT.sign(Self.claims, key: JWTKey(jwk: JWK(object: jwk))), keys: signer)
        // key_ops must be an array of strings.
        jwk["key_ops"] = "verify"
        expectJWTError(.invalidKey) { try JWK(object: jwk) }
    }

    @Test func jwkAlgMustFitTheKeyType() throws {
        var jwk = try TestKeys.pair(.rs256).jwk().object
        jwk["alg"] = "ES256"
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: jwk)) }
        jwk["alg"] = "HS256"
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: jwk)) }
        jwk["alg"] = "RSA-OAEP"
        expectJWTError(.unsupportedAlgorithm) { try JWTKey(jwk: JWK(object: jwk)) }
        var ec = try TestKeys.pair(.es256).jwk().object
        ec["alg"] = "ES512"
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: ec)) }
    }

    @Test func malformedJWKsAreInvalidKeys() throws {
        let cases: [String] = [
            #"[]"#,
            #"{"#,
            #"{}"#,
            #"{"kty":5}"#,
            #"{"kty":"RSA"}"#,
            #"{"kty":"RSA","n":"AQAB"}"#,
            #"{"kty":"RSA","n":"!!!","e":"AQAB"}"#,
            #"{"kty":"RSA","n":"AQAB=","e":"AQAB"}"#,
            #"{"kty":"EC","crv":"P-256","x":"AQAB"}"#,
            #"{"kty":"EC","crv":"secp256k1","x":"AQAB","y":"AQAB"}"#,
            #"{"kty":"EC","x":"AQAB","y":"AQAB"}"#,
            #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode([UInt8](repeating: 9, count: 32)))"}"#,
            #"{"kty":"OKP","crv":"Ed25519","x":"AQAB"}"#,
            #"{"kty":"OKP","crv":"Ed448","x":"AQAB"}"#,
            #"{"kty":"oct"}"#,
            #"{"kty":"RSA","kid":7,"n":"AQAB","e":"AQAB"}"#,
            #"{"kty":"weird"}"#,
        ]
        for json in cases {
            expectJWTError(.invalidKey, "\(json)") { try JWTKey(jwkJSON: json) }
        }
    }

    @Test func rsaPrivateJWKNeedsItsCRTMembers() throws {
        var jwk = try TestKeys.pair(.rs256).jwk(includingPrivate: true).object
        jwk["qi"] = nil
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: jwk)) }
    }

    @Test func okpPrivateKeyMustMatchItsX() throws {
        var jwk = try TestKeys.pair(.edDSA).jwk(includingPrivate: true).object
        jwk["x"] = .string(try TestKeys.pair(.ed25519).jwk().object["x"]?.stringValue ?? "")
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: jwk)) }
    }

    @Test(arguments: [JWSAlgorithm.es256, .es384, .es512])
    func ecPointNotOnTheCurveIsRefused(algorithm: JWSAlgorithm) throws {
        let jwk = try TestKeys.pair(algorithm).jwk()
        let y = try #require(jwk.object["y"]?.stringValue.flatMap(Base64URL.decode))
        var offCurve = jwk.object
        var bent = y
        bent[bent.count - 1] ^= 0x01
        offCurve["y"] = .string(Base64URL.encode(bent))
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: offCurve)) }
        // A coordinate of the wrong length is refused too (not zero-extended).
        var short = jwk.object
        short["y"] = .string(Base64URL.encode(Array(y.dropFirst())))
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: short)) }
        // The point at infinity / all zeros.
        var zero = jwk.object
        zero["x"] = .string(Base64URL.encode([UInt8](repeating: 0, count: y.count)))
        zero["y"] = .string(Base64URL.encode([UInt8](repeating: 0, count: y.count)))
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: zero)) }
    }

    @Test func ecPointNotOnTheCurveInSPKIIsRefused() throws {
        let pem = try Vectors.text("ec-p256-spki.pem")
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        var der = try #require(Data(base64Encoded: body).map { [UInt8]($0) })
        der[der.count - 1] ^= 0x01
        let bent = "-----BEGIN PUBLIC KEY-----\n\(Data(der).base64EncodedString(options: .lineLength64Characters))\n-----END PUBLIC KEY-----\n"
        expectJWTError(.invalidKey) { try JWTKey(pem: bent) }
    }

    // MARK: PEM

    @Test(arguments: [
        ("rsa-pkcs8.pem", ["rsa-spki.pem", "rsa-pkcs1-public.pem", "rsa-cert.pem", "rsa-pkcs1-private.pem"]),
        ("rsa-pkcs1-private.pem", ["rsa-spki.pem", "rsa-cert.pem"]),
        ("ec-p256-sec1.pem", ["ec-p256-spki.pem", "ec-p256-cert.pem", "ec-p256-pkcs8.pem"]),
        ("ec-p256-pkcs8.pem", ["ec-p256-spki.pem", "ec-p256-cert.pem"]),
        ("ed25519-pkcs8.pem", ["ed25519-spki.pem"]),
    ])
    func pemKeysSignAndVerify(privateFile: String, publicFiles: [String]) throws {
        let signer = try JWTKey(pem: Vectors.text(privateFile), keyID: "pem")
        #expect(signer.canSign)
        #expect(signer.keyID == "pem")
        let token = try JWT.sign(Self.claims, key: signer)
        for file in publicFiles {
            let verifier = try JWTKey(pem: Vectors.text(file))
            #expect(verifier.allowedAlgorithms == signer.allowedAlgorithms, "\(file)")
            _ = try JWT.verify(token, keys: verifier)
        }
        // A PEM round trip: SPKI out, SPKI in; PKCS#8 out, PKCS#8 in.
        let spki = try #require(try signer.pem())
        #expect(spki.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        _ = try JWT.verify(token, keys: JWTKey(pem: spki))
        let pkcs8 = try #require(try signer.pem(includingPrivate: true))
        #expect(pkcs8.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        _ = try JWT.verify(JWT.sign(Self.claims, key: JWTKey(pem: pkcs8)), keys: signer.publicKey)
        // The public half exports no private PEM.
        #expect(try signer.publicKey.pem(includingPrivate: true) == spki)
    }

    @Test func p384SEC1Key() throws {
        let key = try JWTKey(pem: Vectors.text("ec-p384-sec1.pem"))
        #expect(key.allowedAlgorithms == [.es384])
        #expect(key.typeDescription == "EC P-384")
        _ = try JWT.verify(JWT.sign(Self.claims, key: key), keys: key.publicKey)
    }

    @Test func secretsHaveNoPEM() throws {
        #expect(try TestKeys.pair(.hs256).pem() == nil)
        #expect(try TestKeys.pair(.hs256).pem(includingPrivate: true) == nil)
    }

    @Test func badPEMIsAnInvalidKey() throws {
        let spki = try Vectors.text("rsa-spki.pem")
        let cases: [String] = [
            "",
            "not a pem",
            spki.replacingOccurrences(of: "-----END PUBLIC KEY-----", with: ""),
            spki.replacingOccurrences(of: "-----END PUBLIC KEY-----", with: "-----END PRIVATE KEY-----"),
            spki.replacingOccurrences(of: "PUBLIC KEY", with: "OPENSSH PRIVATE KEY"),
            spki.replacingOccurrences(of: "PUBLIC KEY", with: "DSA PARAMETERS"),
            "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n",
        ]
        for pem in cases {
            expectJWTError(.invalidKey, "\(pem.prefix(40))") { try JWTKey(pem: pem) }
        }
        // Trailing garbage after the DER structure is refused, not ignored.
        let body = spki.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        let padded =
            "-----BEGIN PUBLIC KEY-----\n\((der + Data([0, 0])).base64EncodedString(options: .lineLength64Characters))\n-----END PUBLIC KEY-----\n"
        expectJWTError(.invalidKey) { try JWTKey(pem: padded) }
    }

    @Test func pemWithAlgorithmAndCRLFLineEndings() throws {
        let crlf = try Vectors.text("rsa-spki.pem").replacingOccurrences(of: "\n", with: "\r\n")
        let key = try JWTKey(pem: crlf, algorithm: .ps512, keyID: "crlf")
        #expect(key.allowedAlgorithms == [.ps512])
        #expect(key.algorithm == .ps512)
        expectJWTError(.invalidKey) { try JWTKey(pem: crlf, algorithm: .edDSA) }
        expectJWTError(.invalidKey) { try JWTKey(pem: crlf, algorithm: .hs256) }
    }

    // MARK: Properties

    @Test func keyPropertiesDescribeTheKey() throws {
        let rsa = try TestKeys.pair(.ps256)
        #expect(rsa.canSign && rsa.canVerify)
        #expect(!rsa.isSecret)
        #expect(rsa.typeDescription == "RSA 2048")
        #expect(rsa.signingAlgorithm == .ps256)
        #expect(rsa.publicKey.keyID == rsa.keyID)
        #expect(!rsa.publicKey.canSign)
        #expect(rsa.publicKey.canVerify)
        let secret = try TestKeys.pair(.hs512)
        #expect(secret.isSecret)
        #expect(secret.typeDescription == "oct 512")
        // A secret's "public key" is itself: it can still sign.
        #expect(secret.publicKey.canSign)
        #expect(try TestKeys.pair(.ed25519).typeDescription == "Ed25519")
    }

    @Test(arguments: JWSAlgorithm.signing)
    func generatedKeysMatchTheirAlgorithm(algorithm: JWSAlgorithm) throws {
        let key = try JWTKey.generate(for: algorithm, keyID: "gen")
        #expect(key.algorithm == algorithm)
        #expect(key.allowedAlgorithms == [algorithm])
        #expect(key.keyID == "gen")
        #expect(key.signingAlgorithm == algorithm)
        // Two generated keys differ.
        let other = try JWTKey.generate(for: algorithm)
        expectJWTError(.signatureInvalid) { try JWT.verify(JWT.sign(Self.claims, key: key), keys: other.publicKey) }
    }
}
