internal import LatchkeyCrypto

/// A key that verifies (and, with private material, signs) tokens, parsed once.
///
/// The key decides which algorithms it accepts: the one it was given (from a JWK's
/// `alg` or by the caller), or else only those of its type and curve (RSA → RS*/PS*,
/// P-256 → ES256, P-384 → ES384, P-521 → ES512, Ed25519 → EdDSA/Ed25519, secret → HS*).
/// Verification contexts for every accepted algorithm are prepared at construction, so
/// verifying never decodes the key again. Immutable; safe to share between threads.
public struct JWTKey: Sendable, CustomStringConvertible {
    /// The key's `kid`, if any.
    public var keyID: String? { storage.keyID }
    /// The algorithm the key is pinned to, if any.
    public var algorithm: JWSAlgorithm? { storage.algorithm }
    /// The algorithms the key accepts, in preference order.
    public var allowedAlgorithms: [JWSAlgorithm] { storage.allowedAlgorithms }
    /// Whether `use`/`key_ops` permit verification.
    public var canVerify: Bool { storage.canVerify }
    /// Whether the key has private material and `use`/`key_ops` permit signing.
    public var canSign: Bool { storage.canSign }

    enum Material: Sendable {
        case secret([UInt8], macs: [HMACKey])
        case asymmetric(PublicKey, PrivateKey?, verifiers: [SignatureVerifier])
    }

    var material: Material { storage.material }

    /// Everything, immutable, behind one reference: a key is copied (into key sets,
    /// candidate lists, results) with one retain, not one per member.
    private final class Storage: Sendable {
        let keyID: String?
        let algorithm: JWSAlgorithm?
        let allowedAlgorithms: [JWSAlgorithm]
        let canVerify: Bool
        let canSign: Bool
        let material: Material

        init(keyID: String?, algorithm: JWSAlgorithm?, allowedAlgorithms: [JWSAlgorithm], canVerify: Bool, canSign: Bool, material: Material) {
            self.keyID = keyID
            self.algorithm = algorithm
            self.allowedAlgorithms = allowedAlgorithms
            self.canVerify = canVerify
            self.canSign = canSign
            self.material = material
        }
    }

    private let storage: Storage

    init(keyID: String?, algorithm: JWSAlgorithm?, material: Material, allowed: [JWSAlgorithm], canVerify: Bool, canSign: Bool) {
        storage = Storage(
            keyID: keyID, algorithm: algorithm, allowedAlgorithms: allowed, canVerify: canVerify, canSign: canSign,
            material: material)
    }

    public var description: String {
        let kind: String
        switch material {
        case .secret(let secret, _): kind = "secret, \(secret.count * 8) bits"
        case .asymmetric(let key, let privateKey, _): kind = "\(key.type)\(privateKey == nil ? "" : ", private")"
        }
        return "JWTKey(\(kind), kid: \(keyID ?? "-"), alg: \(allowedAlgorithms.map(\.rawValue).joined(separator: "/")))"
    }

    // MARK: Secrets

    /// An HMAC key. RFC 7518 §3.2: the secret must be at least as long as the hash
    /// output, so a 20-byte secret cannot be used even for HS256.
    public static func hmac(_ secret: some Sequence<UInt8>, algorithm: JWSAlgorithm? = nil, keyID: String? = nil) throws -> JWTKey {
        let secret = Array(secret)
        let candidates: [JWSAlgorithm]
        if let algorithm {
            guard algorithm.isHMAC else { throw JWTError.invalidKey("a secret can only be used with HS256/384/512, not \(algorithm.rawValue)") }
            candidates = [algorithm]
        } else {
            candidates = [.hs256, .hs384, .hs512]
        }
        let usable = candidates.filter { secret.count >= $0.hash!.byteCount }
        guard !usable.isEmpty else {
            let need = candidates.map { $0.hash!.byteCount }.min()!
            throw JWTError.invalidKey(
                "the secret is \(secret.count) bytes; \(candidates.map(\.rawValue).joined(separator: "/")) needs at least \(need) (RFC 7518 §3.2)")
        }
        do {
            let macs = try usable.map { try HMACKey(algorithm: $0.hash!, key: secret) }
            return JWTKey(
                keyID: keyID, algorithm: algorithm, material: .secret(secret, macs: macs),
                allowed: usable, canVerify: true, canSign: true)
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }

    // MARK: Asymmetric

    init(publicKey: PublicKey, privateKey: PrivateKey?, algorithm: JWSAlgorithm?, keyID: String?, canVerify: Bool = true, canSign: Bool = true) throws
    {
        if case .rsa(let bits) = publicKey.type, bits < 2048 {
            throw JWTError.invalidKey("RSA keys under 2048 bits are refused (this one has \(bits))")
        }
        let natural = JWSAlgorithm.algorithms(for: publicKey.type)
        let allowed: [JWSAlgorithm]
        if let algorithm {
            guard natural.contains(algorithm) else {
                throw JWTError.invalidKey("a \(publicKey.type) key cannot be used with \(algorithm.rawValue)")
            }
            allowed = [algorithm]
        } else {
            allowed = natural
        }
        do {
            let verifiers = try allowed.map { try SignatureVerifier(key: publicKey, scheme: $0.signatureScheme!) }
            self.init(
                keyID: keyID, algorithm: algorithm, material: .asymmetric(publicKey, privateKey, verifiers: verifiers),
                allowed: allowed, canVerify: canVerify, canSign: canSign && privateKey != nil)
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }

    /// Parses a PEM key: SubjectPublicKeyInfo, PKCS#1 RSA public key, an X.509
    /// certificate's public key, or a private key (PKCS#8, SEC1 EC, PKCS#1 RSA).
    public init(pem: String, algorithm: JWSAlgorithm? = nil, keyID: String? = nil) throws {
        do {
            if let block = try PEMBlock.parseAll(pem).first, block.label.hasSuffix("PRIVATE KEY") {
                let privateKey = try PrivateKey.der(block.der, label: block.label)
                try self.init(publicKey: privateKey.publicKey, privateKey: privateKey, algorithm: algorithm, keyID: keyID)
            } else {
                try self.init(publicKey: PublicKey.pem(pem), privateKey: nil, algorithm: algorithm, keyID: keyID)
            }
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }

    /// Generates a new key for `algorithm` (RSA 2048 for RS*/PS*, the matching curve
    /// for ES*, Ed25519 for EdDSA/Ed25519, 256-512 random bits for HS*).
    public static func generate(for algorithm: JWSAlgorithm, keyID: String? = nil) throws -> JWTKey {
        do {
            switch algorithm {
            case .hs256, .hs384, .hs512:
                return try hmac(SecureRandom.bytes(algorithm.hash!.byteCount), algorithm: algorithm, keyID: keyID)
            case .none:
                throw JWTError(.unsupportedAlgorithm, "\"none\" has no key")
            default:
                let type: AsymmetricKeyType
                switch algorithm {
                case .es256: type = .ec(.p256)
                case .es384: type = .ec(.p384)
                case .es512: type = .ec(.p521)
                case .edDSA, .ed25519: type = .ed25519
                default: type = .rsa(bits: 2048)
                }
                let privateKey = try PrivateKey.generate(type)
                return try JWTKey(publicKey: privateKey.publicKey, privateKey: privateKey, algorithm: algorithm, keyID: keyID)
            }
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }

    /// The public half of this key (a secret key stays a secret key).
    public var publicKey: JWTKey {
        guard case .asymmetric(let key, .some, let verifiers) = material else { return self }
        return JWTKey(
            keyID: keyID, algorithm: algorithm, material: .asymmetric(key, nil, verifiers: verifiers),
            allowed: allowedAlgorithms, canVerify: canVerify, canSign: false)
    }

    /// Whether this is a shared secret (HMAC) key.
    public var isSecret: Bool { if case .secret = material { true } else { false } }

    /// A short description of the key type: "RSA 2048", "EC P-256", "Ed25519", "oct 256".
    public var typeDescription: String {
        switch material {
        case .secret(let secret, _): "oct \(secret.count * 8)"
        case .asymmetric(let key, _, _): key.type.description
        }
    }

    /// The algorithm this key signs with: the pinned one, else the first allowed.
    public var signingAlgorithm: JWSAlgorithm { algorithm ?? allowedAlgorithms[0] }

    /// Whether a token with header `alg` may be verified with this key.
    func accepts(_ alg: JWSAlgorithm) -> Bool { allowedAlgorithms.contains(alg) }

    /// Verifies `signature` over `signingInput` with `alg` (already checked by `accepts`).
    @inline(__always)
    func verify(_ alg: JWSAlgorithm, signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer) throws -> Bool {
        guard let index = storage.allowedAlgorithms.firstIndex(of: alg) else { return false }
        do {
            switch storage.material {
            case .secret(_, let macs): return try macs[index].isValidAuthenticationCode(signature, for: signingInput)
            case .asymmetric(_, _, let verifiers): return try verifiers[index].verify(signature: signature, message: signingInput)
            }
        } catch {
            throw JWTError(.signatureInvalid, "signature check failed: \(error)", underlying: error)
        }
    }

    /// Signs `signingInput` with `alg`.
    func sign(_ alg: JWSAlgorithm, signingInput: [UInt8]) throws -> [UInt8] {
        guard canSign else { throw JWTError(.keyUsageNotAllowed, "this key cannot sign (no private material, or its use/key_ops forbid it)") }
        guard let index = allowedAlgorithms.firstIndex(of: alg) else {
            throw JWTError(
                .algorithmMismatch, "this key cannot sign \(alg.rawValue); it accepts \(allowedAlgorithms.map(\.rawValue).joined(separator: ", "))")
        }
        do {
            switch material {
            case .secret(_, let macs): return try macs[index].authenticationCode(for: signingInput)
            case .asymmetric(_, let privateKey?, _):
                return try SignatureSigner(key: privateKey, scheme: alg.signatureScheme!).sign(signingInput)
            case .asymmetric(_, nil, _):
                throw JWTError(.keyUsageNotAllowed, "this key has no private material")
            }
        } catch let error as JWTError {
            throw error
        } catch {
            throw JWTError(.signingFailed, "signing failed: \(error)", underlying: error)
        }
    }
}
