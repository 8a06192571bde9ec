internal import COpenSSL

/// Signs messages with one scheme under one private key; the context is prepared once.
package struct SignatureSigner: Sendable {
    package let key: PrivateKey
    package let scheme: SignatureScheme
    private let template: OpenSSLObject

    package init(key: PrivateKey, scheme: SignatureScheme) throws {
        guard scheme.isCompatible(with: key.type) else {
            throw CryptoError(.unsupportedKey, operation: "prepare signer", reason: "a \(key.type) key cannot sign \(scheme)")
        }
        self.key = key
        self.scheme = scheme
        template = try key.object.withPointer { pkey in
            try prepareSignatureContext(pkey: pkey, scheme: scheme, signing: true)
        }
    }

    /// Signs `message`; ECDSA signatures come back as JWS raw r || s.
    package func sign(_ message: some Sequence<UInt8>) throws -> [UInt8] {
        let operation = "sign"
        let signature: [UInt8] = try withContiguousBytes(message) { message in
            try template.withPointer { template in
                guard let ctx = EVP_MD_CTX_new() else { throw CryptoError.openSSL(operation) }
                defer { EVP_MD_CTX_free(ctx) }
                guard EVP_MD_CTX_copy_ex(ctx, template) == 1 else { throw CryptoError.openSSL(operation) }
                var empty: UInt8 = 0
                return try withUnsafePointer(to: &empty) { emptyPointer in
                    let input = message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer
                    // Ask for the maximum size first (a NULL buffer), then sign.
                    var length = 0
                    guard EVP_DigestSign(ctx, nil, &length, input, message.count) == 1 else { throw CryptoError.openSSL(operation) }
                    var out = [UInt8](repeating: 0, count: length)
                    guard EVP_DigestSign(ctx, &out, &length, input, message.count) == 1 else { throw CryptoError.openSSL(operation) }
                    return Array(out[..<length])
                }
            }
        }
        if case .ecdsa = scheme, case .ec(let curve) = key.type {
            guard let raw = ECDSASignature.raw(fromDER: signature, coordinateSize: curve.coordinateByteCount) else {
                throw CryptoError(.openSSL, operation: operation, reason: "OpenSSL returned a malformed ECDSA signature")
            }
            return raw
        }
        return signature
    }
}
