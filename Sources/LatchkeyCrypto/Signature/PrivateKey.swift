internal import COpenSSL

/// An asymmetric private key, parsed once, with its public half.
///
/// Immutable and safe to share between threads. Its `description` never shows key material.
package struct PrivateKey: Sendable, CustomStringConvertible {
    let object: OpenSSLObject
    package let type: AsymmetricKeyType
    /// The matching public key.
    package let publicKey: PublicKey

    init(taking pkey: OpaquePointer, operation: String) throws {
        object = OpenSSLObject.pkey(pkey)
        type = try keyType(of: pkey, operation: operation)
        // The public half as its own object, so sharing it never shares the private key.
        let spki = try withMemoryBIO(operation: operation) { bio in i2d_PUBKEY_bio(bio, pkey) }
        publicKey = try PublicKey.der(spki)
    }

    package var description: String { "PrivateKey(\(type), redacted)" }

    /// Private components, as a JWK needs them.
    package enum Components: Sendable, Equatable {
        case rsa(n: [UInt8], e: [UInt8], d: [UInt8], p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qi: [UInt8])
        case ec(curve: EllipticCurve, x: [UInt8], y: [UInt8], d: [UInt8])
        case ed25519(x: [UInt8], d: [UInt8])
    }

    // MARK: Generation

    /// Generates a new key: RSA of `bits` (at least 2048), an EC key on a curve, or Ed25519.
    package static func generate(_ type: AsymmetricKeyType) throws -> PrivateKey {
        let operation = "generate \(type) key"
        let name: String
        switch type {
        case .rsa(let bits):
            guard bits >= 2048 else { throw CryptoError(.keyTooSmall, operation: operation, reason: "RSA keys must be at least 2048 bits") }
            name = "RSA"
        case .ec: name = "EC"
        case .ed25519: name = "ED25519"
        }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, name, nil) else { throw CryptoError.openSSL(operation) }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw CryptoError.openSSL(operation) }
        switch type {
        case .rsa(let bits):
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1 else { throw CryptoError.openSSL(operation) }
        case .ec(let curve):
            guard EVP_PKEY_CTX_set_group_name(ctx, curve.openSSLGroupName) == 1 else { throw CryptoError.openSSL(operation) }
        case .ed25519: break
        }
        var pkey: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &pkey) == 1, let pkey else { throw CryptoError.openSSL(operation) }
        return try PrivateKey(taking: pkey, operation: operation)
    }

    // MARK: Construction

    /// An RSA private key from its CRT components.
    package static func rsa(n: [UInt8], e: [UInt8], d: [UInt8], p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qi: [UInt8]) throws -> PrivateKey {
        let operation = "build RSA private key"
        let pkey = try buildKey(
            algorithm: "RSA", selection: selectKeyPair,
            parameters: [
                .bigNumber("n", n), .bigNumber("e", e), .bigNumber("d", d),
                .bigNumber("rsa-factor1", p), .bigNumber("rsa-factor2", q),
                .bigNumber("rsa-exponent1", dp), .bigNumber("rsa-exponent2", dq),
                .bigNumber("rsa-coefficient1", qi),
            ], operation: operation)
        let key = try PrivateKey(taking: pkey, operation: operation)
        try key.checkPairwise(operation: operation)
        return key
    }

    /// An EC private key from its scalar and public point.
    package static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8], d: [UInt8]) throws -> PrivateKey {
        let operation = "build EC private key"
        let size = curve.coordinateByteCount
        guard x.count == size, y.count == size, d.count == size else {
            throw CryptoError.invalidKey(operation, "\(curve.rawValue) components must be \(size) bytes each")
        }
        let pkey = try buildKey(
            algorithm: "EC", selection: selectKeyPair,
            parameters: [
                .utf8("group", curve.openSSLGroupName), .octets("pub", [0x04] + x + y), .bigNumber("priv", d),
            ], operation: operation)
        let key = try PrivateKey(taking: pkey, operation: operation)
        try key.checkPairwise(operation: operation)
        return key
    }

    /// Throws unless the private half matches the public half (an EC scalar its point,
    /// RSA's d and CRT values its n and e). Parsers accept keys whose halves disagree:
    /// such a key signs tokens its own public key never verifies.
    private func checkPairwise(operation: String) throws {
        try object.withPointer { pkey in
            guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw CryptoError.openSSL(operation) }
            defer { EVP_PKEY_CTX_free(ctx) }
            guard EVP_PKEY_pairwise_check(ctx) == 1 else {
                ERR_clear_error()
                let halves =
                    if case .rsa = type { "the private exponent and factors do not match the modulus and public exponent" } else {
                        "the private scalar does not match the public point"
                    }
                throw CryptoError.invalidKey(operation, halves)
            }
        }
    }

    /// An Ed25519 private key from its 32-byte seed.
    package static func ed25519(seed: [UInt8]) throws -> PrivateKey {
        let operation = "build Ed25519 private key"
        guard seed.count == 32 else { throw CryptoError.invalidKey(operation, "an Ed25519 private key is 32 bytes") }
        guard let pkey = EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, seed, seed.count) else {
            throw CryptoError.openSSL(operation, code: .invalidKey)
        }
        return try PrivateKey(taking: pkey, operation: operation)
    }

    /// Parses DER: PKCS#8 `PrivateKeyInfo`, SEC1 `ECPrivateKey` or PKCS#1 `RSAPrivateKey`.
    package static func der(_ der: [UInt8], label: String = "PRIVATE KEY") throws -> PrivateKey {
        let operation = "parse \(label)"
        let type: Int32?
        switch label {
        case "PRIVATE KEY": type = nil
        case "EC PRIVATE KEY": type = EVP_PKEY_EC
        case "RSA PRIVATE KEY": type = EVP_PKEY_RSA
        default: throw CryptoError(.unsupportedKey, operation: operation, reason: "unsupported private key block '\(label)'")
        }
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            if let type { return d2i_PrivateKey(type, nil, &cursor, buffer.count) }
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let pkey else { throw CryptoError.openSSL(operation, code: .invalidKey) }
        let key = try PrivateKey(taking: pkey, operation: operation)
        // PKCS#8 and SEC1 carry the public point next to the scalar (PKCS#1 RSA its n, e
        // next to d and the factors), and nothing makes them agree.
        if case .ed25519 = key.type {} else { try key.checkPairwise(operation: operation) }
        return key
    }

    /// Parses the first private key in PEM text.
    package static func pem(_ text: String) throws -> PrivateKey {
        guard let block = try PEMBlock.parseAll(text).first(where: { $0.label.hasSuffix("PRIVATE KEY") }) else {
            throw CryptoError.invalidInput("parse PEM", "no private key block found")
        }
        return try der(block.der, label: block.label)
    }

    // MARK: Export

    package var components: Components {
        object.withPointer { pkey in
            switch type {
            case .rsa:
                let get = { (name: String) in bigNumberParameter(pkey, name) ?? [] }
                return .rsa(
                    n: get("n"), e: get("e"), d: get("d"), p: get("rsa-factor1"), q: get("rsa-factor2"),
                    dp: get("rsa-exponent1"), dq: get("rsa-exponent2"), qi: get("rsa-coefficient1"))
            case .ec(let curve):
                guard case .ec(_, let x, let y) = publicKey.components else { return .ec(curve: curve, x: [], y: [], d: []) }
                return .ec(curve: curve, x: x, y: y, d: bigNumberParameter(pkey, "priv", padTo: curve.coordinateByteCount) ?? [])
            case .ed25519:
                guard case .ed25519(let x) = publicKey.components else { return .ed25519(x: [], d: []) }
                var length = 32
                var raw = [UInt8](repeating: 0, count: 32)
                _ = EVP_PKEY_get_raw_private_key(pkey, &raw, &length)
                return .ed25519(x: x, d: raw)
            }
        }
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), unencrypted.
    package func pkcs8PEM() throws -> String {
        let der = try object.withPointer { pkey in
            try withMemoryBIO(operation: "encode private key") { bio in i2d_PKCS8PrivateKey_bio(bio, pkey, nil, nil, 0, nil, nil) }
        }
        return PEMBlock.armor(der, label: "PRIVATE KEY")
    }
}
