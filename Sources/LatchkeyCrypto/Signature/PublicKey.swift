internal import COpenSSL

/// An asymmetric public key (RSA, EC P-256/384/521 or Ed25519), parsed once.
///
/// Immutable and safe to share between threads.
package struct PublicKey: Sendable {
    let object: OpenSSLObject
    /// The key's type, size or curve.
    package let type: AsymmetricKeyType

    init(taking pkey: OpaquePointer, operation: String) throws {
        let object = OpenSSLObject.pkey(pkey)
        self.object = object
        self.type = try keyType(of: pkey, operation: operation)
    }

    /// The public components, as a JWK needs them.
    package enum Components: Sendable, Equatable {
        case rsa(modulus: [UInt8], exponent: [UInt8])
        case ec(curve: EllipticCurve, x: [UInt8], y: [UInt8])
        case ed25519(x: [UInt8])
    }

    // MARK: Construction from components

    /// An RSA public key from its big-endian modulus and exponent.
    package static func rsa(modulus: [UInt8], exponent: [UInt8]) throws -> PublicKey {
        let operation = "build RSA public key"
        let pkey = try buildKey(
            algorithm: "RSA", selection: selectPublicKey,
            parameters: [
                .bigNumber("n", modulus), .bigNumber("e", exponent),
            ], operation: operation)
        return try PublicKey(taking: pkey, operation: operation)
    }

    /// An EC public key from its affine coordinates; the point must lie on the curve.
    package static func ec(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws -> PublicKey {
        let operation = "build EC public key"
        guard x.count == curve.coordinateByteCount, y.count == curve.coordinateByteCount else {
            throw CryptoError.invalidKey(operation, "\(curve.rawValue) coordinates must be \(curve.coordinateByteCount) bytes each")
        }
        let pkey = try buildKey(
            algorithm: "EC", selection: selectPublicKey,
            parameters: [
                .utf8("group", curve.openSSLGroupName), .octets("pub", [0x04] + x + y),
            ], operation: operation)
        let key = try PublicKey(taking: pkey, operation: operation)
        try key.object.withPointer { try checkPublicKey($0, operation: operation) }
        return key
    }

    /// An Ed25519 public key from its 32 raw bytes.
    package static func ed25519(_ raw: [UInt8]) throws -> PublicKey {
        let operation = "build Ed25519 public key"
        guard raw.count == 32 else { throw CryptoError.invalidKey(operation, "an Ed25519 public key is 32 bytes") }
        guard let pkey = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, raw, raw.count) else {
            throw CryptoError.openSSL(operation, code: .invalidKey)
        }
        return try PublicKey(taking: pkey, operation: operation)
    }

    // MARK: Construction from encodings

    /// Parses DER: SubjectPublicKeyInfo, or PKCS#1 `RSAPublicKey` when `pkcs1RSA` is set.
    package static func der(_ der: [UInt8], pkcs1RSA: Bool = false) throws -> PublicKey {
        let operation = pkcs1RSA ? "parse PKCS#1 RSA public key" : "parse SubjectPublicKeyInfo"
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed =
                pkcs1RSA
                ? d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, buffer.count)
                : d2i_PUBKEY(nil, &cursor, buffer.count)
            // Trailing garbage after the structure is refused.
            if let parsed, cursor != buffer.baseAddress.map({ $0 + buffer.count }) {
                EVP_PKEY_free(parsed)
                return nil
            }
            return parsed
        }
        guard let pkey else { throw CryptoError.openSSL(operation, code: .invalidKey) }
        let key = try PublicKey(taking: pkey, operation: operation)
        if case .ec = key.type { try key.object.withPointer { try checkPublicKey($0, operation: operation) } }
        return key
    }

    /// Parses the first key in PEM text: `PUBLIC KEY`, `RSA PUBLIC KEY`, `CERTIFICATE`
    /// (its subject public key), or any private key form (its public half).
    package static func pem(_ text: String) throws -> PublicKey {
        let blocks = try PEMBlock.parseAll(text)
        guard let block = blocks.first else {
            throw CryptoError.invalidInput("parse PEM", "no PEM block found")
        }
        switch block.label {
        case "PUBLIC KEY": return try der(block.der)
        case "RSA PUBLIC KEY": return try der(block.der, pkcs1RSA: true)
        case "CERTIFICATE": return try certificate(block.der)
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
            return try PrivateKey.pem(text).publicKey
        default:
            throw CryptoError(.unsupportedKey, operation: "parse PEM", reason: "unsupported PEM block '\(block.label)'")
        }
    }

    /// The subject public key of a DER X.509 certificate.
    package static func certificate(_ der: [UInt8]) throws -> PublicKey {
        let operation = "parse X.509 certificate"
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else { throw CryptoError.openSSL(operation, code: .invalidKey) }
        defer { X509_free(certificate) }
        guard let pkey = X509_get_pubkey(certificate) else { throw CryptoError.openSSL(operation, code: .invalidKey) }
        return try PublicKey(taking: pkey, operation: operation)
    }

    // MARK: Export

    /// The key's components.
    package var components: Components {
        object.withPointer { pkey in
            switch type {
            case .rsa:
                return .rsa(modulus: bigNumberParameter(pkey, "n") ?? [], exponent: bigNumberParameter(pkey, "e") ?? [])
            case .ec(let curve):
                let point = octetParameter(pkey, "encoded-pub-key") ?? octetParameter(pkey, "pub") ?? []
                let size = curve.coordinateByteCount
                guard point.count == 1 + 2 * size, point[0] == 0x04 else { return .ec(curve: curve, x: [], y: []) }
                return .ec(curve: curve, x: Array(point[1...size]), y: Array(point[(1 + size)...]))
            case .ed25519:
                var length = 32
                var raw = [UInt8](repeating: 0, count: 32)
                _ = EVP_PKEY_get_raw_public_key(pkey, &raw, &length)
                return .ed25519(x: raw)
            }
        }
    }

    /// SubjectPublicKeyInfo DER.
    package func spkiDER() throws -> [UInt8] {
        try object.withPointer { pkey in
            try withMemoryBIO(operation: "encode public key") { bio in i2d_PUBKEY_bio(bio, pkey) }
        }
    }

    /// SubjectPublicKeyInfo PEM (`PUBLIC KEY`).
    package func pem() throws -> String {
        PEMBlock.armor(try spkiDER(), label: "PUBLIC KEY")
    }
}
