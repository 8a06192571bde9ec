import Testing

@testable import LatchkeyCrypto

@Suite struct SignatureTests {
    static let cases: [(AsymmetricKeyType, SignatureScheme)] = [
        (.rsa(bits: 2048), .rsaPKCS1v15(.sha256)), (.rsa(bits: 2048), .rsaPKCS1v15(.sha384)), (.rsa(bits: 2048), .rsaPKCS1v15(.sha512)),
        (.rsa(bits: 2048), .rsaPSS(.sha256)), (.rsa(bits: 2048), .rsaPSS(.sha384)), (.rsa(bits: 2048), .rsaPSS(.sha512)),
        (.ec(.p256), .ecdsa(.sha256)), (.ec(.p384), .ecdsa(.sha384)), (.ec(.p521), .ecdsa(.sha512)),
        (.ed25519, .ed25519),
    ]

    @Test(arguments: 0..<cases.count)
    func signThenVerifyRepeatedly(index: Int) throws {
        let (type, scheme) = Self.cases[index]
        let key = try PrivateKey.generate(type)
        let signer = try SignatureSigner(key: key, scheme: scheme)
        let verifier = try SignatureVerifier(key: key.publicKey, scheme: scheme)
        let message = Array("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0".utf8)
        for _ in 0..<3 {
            let signature = try signer.sign(message)
            if case .ec(let curve) = type { #expect(signature.count == 2 * curve.coordinateByteCount) }
            // The prepared context is copied, so verifying many times must keep working.
            #expect(try verifier.verify(signature: signature, message: message))
            #expect(try verifier.verify(signature: signature, message: message))
            var tampered = signature
            tampered[tampered.count / 2] ^= 0x01
            #expect(try !verifier.verify(signature: tampered, message: message))
            #expect(try !verifier.verify(signature: signature, message: message + [0]))
            #expect(try !verifier.verify(signature: Array(signature.dropLast()), message: message))
            #expect(try !verifier.verify(signature: [UInt8](), message: message))
        }
    }

    /// RFC 8017: an RSA signature is exactly as long as the modulus. OpenSSL's PSS
    /// verification would accept one with a leading zero byte stripped.
    @Test(arguments: [SignatureScheme.rsaPSS(.sha256), .rsaPKCS1v15(.sha256)])
    func shortenedRSASignatureIsRefused(scheme: SignatureScheme) throws {
        let key = try PrivateKey.generate(.rsa(bits: 2048))
        let signer = try SignatureSigner(key: key, scheme: scheme)
        let verifier = try SignatureVerifier(key: key.publicKey, scheme: scheme)
        for attempt in 0..<5000 {
            let message = Array("message \(attempt)".utf8)
            let signature = try signer.sign(message)
            guard signature[0] == 0 else { continue }
            #expect(try verifier.verify(signature: signature, message: message))
            #expect(try !verifier.verify(signature: Array(signature.dropFirst()), message: message))
            return
        }
        Issue.record("no signature with a leading zero byte in 5000 attempts")
    }

    @Test func keyTypeMismatchIsRefused() throws {
        let ec = try PrivateKey.generate(.ec(.p256))
        #expect(throws: CryptoError.self) { try SignatureVerifier(key: ec.publicKey, scheme: .rsaPKCS1v15(.sha256)) }
        #expect(throws: CryptoError.self) { try PrivateKey.generate(.rsa(bits: 1024)) }
    }

    @Test func componentsRoundTrip() throws {
        for type in [AsymmetricKeyType.rsa(bits: 2048), .ec(.p256), .ec(.p384), .ec(.p521), .ed25519] {
            let key = try PrivateKey.generate(type)
            let rebuilt: PrivateKey
            switch key.components {
            case .rsa(let n, let e, let d, let p, let q, let dp, let dq, let qi):
                rebuilt = try PrivateKey.rsa(n: n, e: e, d: d, p: p, q: q, dp: dp, dq: dq, qi: qi)
                #expect(try PublicKey.rsa(modulus: n, exponent: e).spkiDER() == key.publicKey.spkiDER())
            case .ec(let curve, let x, let y, let d):
                rebuilt = try PrivateKey.ec(curve: curve, x: x, y: y, d: d)
                #expect(try PublicKey.ec(curve: curve, x: x, y: y).spkiDER() == key.publicKey.spkiDER())
            case .ed25519(let x, let d):
                rebuilt = try PrivateKey.ed25519(seed: d)
                #expect(try PublicKey.ed25519(x).spkiDER() == key.publicKey.spkiDER())
            }
            #expect(try rebuilt.publicKey.spkiDER() == key.publicKey.spkiDER())
            // PEM round trip of both halves.
            let pem = try key.pkcs8PEM()
            #expect(try PrivateKey.pem(pem).publicKey.spkiDER() == key.publicKey.spkiDER())
            #expect(try PublicKey.pem(key.publicKey.pem()).spkiDER() == key.publicKey.spkiDER())
            #expect(!key.description.contains("BEGIN"))
        }
    }

    @Test func pointOffTheCurveIsRefused() throws {
        let key = try PrivateKey.generate(.ec(.p256))
        guard case .ec(_, let x, var y) = key.publicKey.components else {
            Issue.record("not EC")
            return
        }
        y[31] ^= 1
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p256, x: x, y: y) }
    }
}
