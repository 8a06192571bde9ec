internal import LatchkeyCrypto
import LatchkeyJSON

extension JWTKey {
    /// Builds a key from a JWK. `use: "enc"` or `key_ops` without `verify` yield a key
    /// that refuses to verify; an `alg` the key type cannot carry is an error.
    public init(jwk: JWK) throws {
        var algorithm: JWSAlgorithm?
        if let name = jwk.algorithm {
            guard let known = JWSAlgorithm(joseName: name), known != .none else {
                throw JWTError(.unsupportedAlgorithm, "the JWK's alg \"\(name)\" is not a supported signature algorithm")
            }
            algorithm = known
        }
        // JOSE strings compare by their bytes (`==` would take "O\u{212A}P" for "OKP"):
        // match each against the literals once, then switch on the literal.
        let usageAllowsSignatures = jwk.use.map { sameCodeUnits($0, "sig") } ?? true
        let canVerify = usageAllowsSignatures && (jwk.keyOperations.map { $0.contains { sameCodeUnits($0, "verify") } } ?? true)
        let canSign = usageAllowsSignatures && (jwk.keyOperations.map { $0.contains { sameCodeUnits($0, "sign") } } ?? true)
        let keyType = ["oct", "RSA", "EC", "OKP"].first { sameCodeUnits($0, jwk.keyType) }
        do {
            switch keyType {
            case "oct"?:
                let key = try JWTKey.hmac(try jwk.requiredBytes("k"), algorithm: algorithm, keyID: jwk.keyID)
                self.init(
                    keyID: key.keyID, algorithm: key.algorithm, material: key.material, allowed: key.allowedAlgorithms,
                    canVerify: canVerify, canSign: canSign)
                return
            case "RSA"?:
                let n = try jwk.requiredBytes("n"), e = try jwk.requiredBytes("e")
                var privateKey: PrivateKey?
                if let d = try jwk.bytes("d") {
                    guard let p = try jwk.bytes("p"), let q = try jwk.bytes("q"), let dp = try jwk.bytes("dp"),
                        let dq = try jwk.bytes("dq"), let qi = try jwk.bytes("qi")
                    else { throw JWTError.invalidKey("RSA private JWKs need p, q, dp, dq and qi as well as d") }
                    privateKey = try PrivateKey.rsa(n: n, e: e, d: d, p: p, q: q, dp: dp, dq: dq, qi: qi)
                }
                let publicKey = try privateKey?.publicKey ?? PublicKey.rsa(modulus: n, exponent: e)
                try self.init(
                    publicKey: publicKey, privateKey: privateKey, algorithm: algorithm, keyID: jwk.keyID, canVerify: canVerify, canSign: canSign)
            case "EC"?:
                guard let name = jwk.curve, let curve = EllipticCurve(rawValue: name), sameCodeUnits(curve.rawValue, name) else {
                    throw JWTError.invalidKey("unsupported EC curve \"\(jwk.curve ?? "(none)")\" (P-256, P-384, P-521)")
                }
                let x = try jwk.requiredBytes("x"), y = try jwk.requiredBytes("y")
                let privateKey = try jwk.bytes("d").map { try PrivateKey.ec(curve: curve, x: x, y: y, d: $0) }
                let publicKey = try privateKey?.publicKey ?? PublicKey.ec(curve: curve, x: x, y: y)
                try self.init(
                    publicKey: publicKey, privateKey: privateKey, algorithm: algorithm, keyID: jwk.keyID, canVerify: canVerify, canSign: canSign)
            case "OKP"?:
                guard let curve = jwk.curve, sameCodeUnits(curve, "Ed25519") else {
                    throw JWTError.invalidKey("unsupported OKP curve \"\(jwk.curve ?? "(none)")\" (only Ed25519 signs)")
                }
                let x = try jwk.requiredBytes("x")
                let privateKey = try jwk.bytes("d").map { try PrivateKey.ed25519(seed: $0) }
                if let privateKey, case .ed25519(let derived) = privateKey.publicKey.components, derived != x {
                    throw JWTError.invalidKey("the OKP private key does not match its \"x\"")
                }
                let publicKey = try privateKey?.publicKey ?? PublicKey.ed25519(x)
                try self.init(
                    publicKey: publicKey, privateKey: privateKey, algorithm: algorithm, keyID: jwk.keyID, canVerify: canVerify, canSign: canSign)
            default:
                throw JWTError.invalidKey("unsupported kty \"\(jwk.keyType)\" (RSA, EC, OKP, oct)")
            }
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }

    /// Parses a JWK from JSON text.
    public init(jwkJSON: String) throws {
        try self.init(jwk: JWK(json: jwkJSON))
    }

    /// The key as a JWK; private members only when `includingPrivate` is set.
    public func jwk(includingPrivate: Bool = false) -> JWK {
        var object = JSONObject()
        let b64 = { (bytes: [UInt8]) in JSONValue.string(Base64URL.encode(bytes)) }
        switch material {
        case .secret(let secret, _):
            object["kty"] = "oct"
            if includingPrivate { object["k"] = b64(secret) }
        case .asymmetric(let publicKey, let privateKey, _):
            let privateComponents = includingPrivate ? privateKey?.components : nil
            switch publicKey.components {
            case .rsa(let n, let e):
                object["kty"] = "RSA"
                object["n"] = b64(n)
                object["e"] = b64(e)
                if case .rsa(_, _, let d, let p, let q, let dp, let dq, let qi) = privateComponents {
                    for (name, value) in [("d", d), ("p", p), ("q", q), ("dp", dp), ("dq", dq), ("qi", qi)] { object[name] = b64(value) }
                }
            case .ec(let curve, let x, let y):
                object["kty"] = "EC"
                object["crv"] = .string(curve.rawValue)
                object["x"] = b64(x)
                object["y"] = b64(y)
                if case .ec(_, _, _, let d) = privateComponents { object["d"] = b64(d) }
            case .ed25519(let x):
                object["kty"] = "OKP"
                object["crv"] = "Ed25519"
                object["x"] = b64(x)
                if case .ed25519(_, let d) = privateComponents { object["d"] = b64(d) }
            }
        }
        if let keyID { object["kid"] = .string(keyID) }
        if let algorithm { object["alg"] = .string(algorithm.rawValue) }
        object["use"] = "sig"
        // Members are known-valid, so this cannot fail.
        return (try? JWK(object: object)) ?? JWK(unchecked: object)
    }

    /// PEM of the public key (SubjectPublicKeyInfo), or of the private key (PKCS#8)
    /// when `includingPrivate` is set and there is one. Nil for secrets.
    public func pem(includingPrivate: Bool = false) throws -> String? {
        guard case .asymmetric(let publicKey, let privateKey, _) = material else { return nil }
        do {
            if includingPrivate, let privateKey { return try privateKey.pkcs8PEM() }
            return try publicKey.pem()
        } catch {
            throw JWTError.invalidKey(causedBy: error)
        }
    }
}
