internal import COpenSSL
internal import Crypto

/// Verifies signatures of one scheme under one public key.
///
/// OpenSSL verifies, except ECDSA on P-384 (ES384) and Ed25519 (EdDSA), which swift-crypto
/// verifies: its BoringSSL needs 0.74× (P-384) and 0.70× (Ed25519) of the instructions OpenSSL
/// 3.0 does, and OpenSSL 3.0 has no faster path for either (Benchmarks/README.md,
/// "ES384 and EdDSA"). Both pass the same Wycheproof vectors.
///
/// The OpenSSL verification context (key, digest, padding) is prepared once at init, and
/// each verification copies it; the swift-crypto key is parsed once at init. No key
/// decoding, algorithm fetch or provider lookup happens per call. Safe to share between threads.
package struct SignatureVerifier: Sendable {
    package let key: PublicKey
    package let scheme: SignatureScheme
    private let engine: Engine

    private enum Engine: Sendable {
        case openSSL(template: OpenSSLObject)
        case p384(P384.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// Prepares a verifier. Throws when the key cannot be used with `scheme`.
    package init(key: PublicKey, scheme: SignatureScheme) throws {
        guard scheme.isCompatible(with: key.type) else {
            throw CryptoError(.unsupportedKey, operation: "prepare verifier", reason: "a \(key.type) key cannot verify \(scheme)")
        }
        self.key = key
        self.scheme = scheme
        switch (key.type, scheme) {
        case (.ec(.p384), .ecdsa(.sha384)):
            do { engine = .p384(try P384.Signing.PublicKey(derRepresentation: key.spkiDER())) } catch {
                throw CryptoError(.unsupportedKey, operation: "prepare verifier", reason: "the P-384 key was refused: \(error)")
            }
        case (.ed25519, .ed25519):
            guard case .ed25519(x: let raw) = key.components, let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
                throw CryptoError(.unsupportedKey, operation: "prepare verifier", reason: "the Ed25519 key was refused")
            }
            engine = .ed25519(publicKey)
        default:
            engine = .openSSL(
                template: try key.object.withPointer { pkey in
                    try prepareSignatureContext(pkey: pkey, scheme: scheme, signing: false)
                })
        }
    }

    /// Verifies `signature` (JWS encoding: raw r || s for ECDSA) over `message`.
    /// Returns false for a wrong or malformed signature; throws only when OpenSSL fails.
    package func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) throws -> Bool {
        switch engine {
        case .p384(let publicKey):
            // RFC 7518 §3.4: r || s, 48 bytes each; the initializer refuses any other length.
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(parsed, for: message)
        case .ed25519(let publicKey):
            return publicKey.isValidSignature(signature, for: message)
        case .openSSL:
            break
        }
        if case .ecdsa = scheme {
            guard case .ec(let curve) = key.type,
                let der = ECDSASignature.der(fromRaw: signature, coordinateSize: curve.coordinateByteCount)
            else { return false }
            return try der.withUnsafeBytes { try verifyEncoded($0, message: message) }
        }
        // RFC 8017 §8.1.2/§8.2.2: an RSA signature is exactly as long as the modulus.
        // (OpenSSL's PSS path tolerates a shorter one, which would make signatures malleable.)
        if case .rsa(let bits) = key.type, signature.count != (bits + 7) / 8 { return false }
        return try verifyEncoded(signature, message: message)
    }

    package func verify(signature: some Sequence<UInt8>, message: some Sequence<UInt8>) throws -> Bool {
        try withContiguousBytes(signature) { signature in
            try withContiguousBytes(message) { message in try verify(signature: signature, message: message) }
        }
    }

    private func verifyEncoded(_ signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) throws -> Bool {
        guard case .openSSL(let template) = engine else { return false }
        return try template.withPointer { template in
            guard let ctx = EVP_MD_CTX_new() else { throw CryptoError.openSSL("verify signature") }
            defer { EVP_MD_CTX_free(ctx) }
            guard EVP_MD_CTX_copy_ex(ctx, template) == 1 else { throw CryptoError.openSSL("verify signature") }
            var empty: UInt8 = 0
            let result = withUnsafePointer(to: &empty) { emptyPointer in
                EVP_DigestVerify(
                    ctx,
                    signature.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer, signature.count,
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer, message.count)
            }
            // 0 is "bad signature"; a negative value is a malformed one. Either way: invalid.
            ERR_clear_error()
            return result == 1
        }
    }
}

/// Prepares a DigestSign/DigestVerify context for `scheme` over `pkey`, to be copied per call.
func prepareSignatureContext(pkey: OpaquePointer, scheme: SignatureScheme, signing: Bool) throws -> OpenSSLObject {
    let operation = signing ? "prepare signer" : "prepare verifier"
    guard let ctx = EVP_MD_CTX_new() else { throw CryptoError.openSSL(operation) }
    let owned = OpenSSLObject.mdContext(ctx)
    var pctx: OpaquePointer?
    let digestName = scheme.digest?.openSSLName
    let ok: Int32 = withOptionalCString(digestName) { name in
        signing
            ? EVP_DigestSignInit_ex(ctx, &pctx, name, nil, nil, pkey, nil)
            : EVP_DigestVerifyInit_ex(ctx, &pctx, name, nil, nil, pkey, nil)
    }
    guard ok == 1, let pctx else { throw CryptoError.openSSL(operation) }
    if case .rsaPSS = scheme {
        // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash output.
        guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
        else { throw CryptoError.openSSL(operation) }
    } else if case .rsaPKCS1v15 = scheme {
        guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1 else { throw CryptoError.openSSL(operation) }
    }
    return owned
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
