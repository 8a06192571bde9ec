internal import COpenSSL

/// The elliptic curves JWS uses for ECDSA.
package enum EllipticCurve: String, Sendable, Hashable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// Bytes in one coordinate, and in each of r and s of a JWS signature.
    package var coordinateByteCount: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// The name OpenSSL gives the group.
    var openSSLGroupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        }
    }

    init?(openSSLGroupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp521r1", "P-521": self = .p521
        default: return nil
        }
    }
}

/// What kind of asymmetric key a key is.
package enum AsymmetricKeyType: Sendable, Hashable, CustomStringConvertible {
    case rsa(bits: Int)
    case ec(EllipticCurve)
    case ed25519

    package var description: String {
        switch self {
        case .rsa(let bits): "RSA \(bits)"
        case .ec(let curve): "EC \(curve.rawValue)"
        case .ed25519: "Ed25519"
        }
    }
}

/// How a signature is made: the JWS families.
package enum SignatureScheme: Sendable, Hashable {
    case rsaPKCS1v15(HashAlgorithm)
    case rsaPSS(HashAlgorithm)
    /// ECDSA with the JWS encoding: r || s, each padded to the curve's size.
    case ecdsa(HashAlgorithm)
    case ed25519

    var digest: HashAlgorithm? {
        switch self {
        case .rsaPKCS1v15(let hash), .rsaPSS(let hash), .ecdsa(let hash): hash
        case .ed25519: nil
        }
    }

    func isCompatible(with type: AsymmetricKeyType) -> Bool {
        switch (self, type) {
        case (.rsaPKCS1v15, .rsa), (.rsaPSS, .rsa), (.ecdsa, .ec), (.ed25519, .ed25519): true
        default: false
        }
    }
}

/// Reads the type of a parsed key.
func keyType(of pkey: OpaquePointer, operation: String) throws -> AsymmetricKeyType {
    if EVP_PKEY_is_a(pkey, "RSA") == 1 {
        return .rsa(bits: Int(EVP_PKEY_get_bits(pkey)))
    }
    if EVP_PKEY_is_a(pkey, "EC") == 1 {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &buffer, buffer.count, &length) == 1 else {
            throw CryptoError.openSSL(operation, code: .unsupportedKey)
        }
        let name = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let curve = EllipticCurve(openSSLGroupName: name) else {
            throw CryptoError(.unsupportedKey, operation: operation, reason: "unsupported curve \(name)")
        }
        return .ec(curve)
    }
    if EVP_PKEY_is_a(pkey, "ED25519") == 1 { return .ed25519 }
    throw CryptoError(.unsupportedKey, operation: operation, reason: "unsupported key type (only RSA, EC P-256/384/521 and Ed25519)")
}
