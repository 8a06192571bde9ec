public import LatchkeyJSON

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A key file, its format told from its content: a PEM block (`-----BEGIN …`), a JSON
/// object with `keys` (a JWKS, RFC 7517 §5), or a JSON object with `kty` (a JWK).
///
/// Read the file once, then ask for what the file is for: ``verificationKeys(algorithm:)``
/// or ``signingKey(algorithm:keyID:)``. ``JWTKey/load(contentsOf:algorithm:keyID:)`` and
/// ``JWKSet/load(contentsOf:algorithm:)`` do both steps. Every failure is a
/// ``JWTError`` with code `invalidKey` whose message never shows the file's content.
public struct JWTKeyFile: Sendable {
    /// What the file holds.
    public enum Format: Sendable, Hashable {
        /// One PEM key: SubjectPublicKeyInfo, PKCS#1, an X.509 certificate, or a private
        /// key (PKCS#8, SEC1, PKCS#1).
        case pem
        /// One JSON Web Key.
        case jwk
        /// A JSON Web Key Set.
        case jwks
    }

    private enum Content: Sendable {
        case pem(String)
        case jwk(JSONObject)
        case jwks([JSONValue])
    }

    /// Files larger than this are refused before more is read (a JWKS of a few hundred
    /// keys is well under it).
    public static let maximumSize = 1 << 20

    private let content: Content

    /// What the file holds.
    public var format: Format {
        switch content {
        case .pem: .pem
        case .jwk: .jwk
        case .jwks: .jwks
        }
    }

    /// The JSON Web Keys as written: a JWKS's entries, or the one JWK; nil for PEM.
    public var jwkEntries: [JSONValue]? {
        switch content {
        case .pem: nil
        case .jwk(let object): [.object(object)]
        case .jwks(let entries): entries
        }
    }

    /// Classifies a key file's bytes.
    ///
    /// - Throws: ``JWTError`` (`invalidKey`) when the bytes are none of the three formats.
    public init(bytes: some Collection<UInt8>) throws {
        guard bytes.count <= Self.maximumSize else {
            throw JWTError.invalidKey("the key file is larger than \(Self.maximumSize / 1024) KiB")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN ") {
            content = .pem(text)
            return
        }
        guard let value = try? JSONValue.parse(text.trimming(while: \.isWhitespace)),
            case .object(let object) = value
        else {
            throw JWTError.invalidKey("not a PEM, JWK or JWKS file")
        }
        if let keys = object["keys"] {
            guard case .array(let entries) = keys else { throw JWTError.invalidKey("the JWKS \"keys\" member is not an array") }
            content = .jwks(entries)
        } else {
            guard object["kty"] != nil else {
                throw JWTError.invalidKey("a JSON object that is neither a JWK (no \"kty\") nor a JWKS (no \"keys\")")
            }
            content = .jwk(object)
        }
    }

    /// Reads and classifies the key file at `url` (at most ``maximumSize`` bytes).
    ///
    /// - Throws: ``JWTError`` (`invalidKey`) when the file cannot be read (the system's
    ///   error is its `underlying`) or is none of the three formats.
    public init(contentsOf url: URL) throws {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(url.path, limit: Self.maximumSize + 1)
        } catch {
            throw JWTError.invalidKey("cannot read key file \(url.path): \(error.reason)", underlying: error)
        }
        try self.init(bytes: bytes)
    }

    /// The keys to verify with: the one key of a PEM or JWK file, or the JWKS's usable keys.
    ///
    /// - Parameter algorithm: pins the keys: a key that names no `alg` gets this one; a
    ///   PEM or JWK naming another is refused; JWKS entries that cannot carry it are left
    ///   as they are (the algorithm check at verification refuses them).
    /// - Throws: ``JWTError`` (`invalidKey`) when the key cannot be used, or the JWKS has
    ///   no usable key (the first skipped key's reason is in the message).
    public func verificationKeys(algorithm: JWSAlgorithm? = nil) throws -> any JWTKeySource {
        switch content {
        case .pem(let text):
            return try JWTKey(pem: text, algorithm: algorithm)
        case .jwk(let object):
            return try JWTKey(jwk: JWK(object: Self.pinned(object, to: algorithm)))
        case .jwks(let entries):
            let adjusted = entries.map { entry -> JSONValue in
                guard let algorithm, case .object(let object) = entry, object["alg"] == nil else { return entry }
                var pinned = object
                pinned["alg"] = .string(algorithm.rawValue)
                return (try? JWTKey(jwk: JWK(object: pinned))) == nil ? entry : .object(pinned)
            }
            let set = try JWKSet(json: JSONValue.object(["keys": .array(adjusted)]).jsonBytes)
            guard !set.keys.isEmpty else {
                let reason = set.skipped.first.map { ": key #\($0.index): \($0.reason)" } ?? ""
                throw JWTError.invalidKey("the JWKS has no usable key\(reason)")
            }
            return set
        }
    }

    /// The private key to sign with, pinned to `algorithm` as in
    /// ``verificationKeys(algorithm:)``. From a JWKS, the private key whose `kid` is
    /// `keyID`, or the only private key when no `keyID` is given. `keyID`, when given,
    /// becomes the key's `kid` (and so the token's).
    ///
    /// - Throws: ``JWTError`` (`invalidKey`) when no single private key fits, or
    ///   (`keyUsageNotAllowed`) when the key cannot sign.
    public func signingKey(algorithm: JWSAlgorithm?, keyID: String? = nil) throws -> JWTKey {
        let key: JWTKey
        switch content {
        case .pem(let text):
            key = try JWTKey(pem: text, algorithm: algorithm, keyID: keyID)
        case .jwk(let object):
            key = try Self.signingKey(jwk: object, algorithm: algorithm, keyID: keyID)
        case .jwks(let entries):
            let privateEntries = entries.compactMap(\.objectValue).filter { $0["d"] != nil || $0["k"] != nil }
            let chosen =
                keyID.map { keyID in privateEntries.filter { $0["kid"]?.stringValue.map { sameCodeUnits($0, keyID) } == true } }
                ?? privateEntries
            guard chosen.count == 1, let object = chosen.first else {
                let problem =
                    chosen.isEmpty
                    ? "no private key\(keyID.map { " with kid \"\($0)\"" } ?? "")"
                    : "\(chosen.count) private keys; choose one by kid"
                throw JWTError.invalidKey("the JWKS has \(problem)")
            }
            key = try Self.signingKey(jwk: object, algorithm: algorithm, keyID: keyID)
        }
        guard key.canSign else {
            throw JWTError(.keyUsageNotAllowed, "this key cannot sign (it is a public key, or its use/key_ops forbid signing)")
        }
        return key
    }

    /// The one key of the file (see ``JWTKey/load(contentsOf:algorithm:keyID:)``).
    func key(algorithm: JWSAlgorithm?, keyID: String?) throws -> JWTKey {
        switch content {
        case .pem(let text):
            return try JWTKey(pem: text, algorithm: algorithm, keyID: keyID)
        case .jwk(let object):
            var object = try Self.pinned(object, to: algorithm)
            if let keyID { object["kid"] = .string(keyID) }
            return try JWTKey(jwk: JWK(object: object))
        case .jwks:
            guard let set = try verificationKeys(algorithm: algorithm) as? JWKSet else { throw JWTError.invalidKey("the JWKS has no usable key") }
            let matching = keyID.map { set.keys(withID: $0) } ?? set.keys
            guard matching.count == 1, let key = matching.first else {
                let problem =
                    matching.isEmpty ? "no usable key\(keyID.map { " with kid \"\($0)\"" } ?? "")" : "\(matching.count) keys; choose one by kid"
                throw JWTError.invalidKey("the JWKS has \(problem)")
            }
            return key
        }
    }

    private static func signingKey(jwk object: JSONObject, algorithm: JWSAlgorithm?, keyID: String?) throws -> JWTKey {
        var object = try pinned(object, to: algorithm)
        if let keyID { object["kid"] = .string(keyID) }
        return try JWTKey(jwk: JWK(object: object))
    }

    /// `object` with `alg` set to `algorithm` when it names none; refused when it names another.
    private static func pinned(_ object: JSONObject, to algorithm: JWSAlgorithm?) throws -> JSONObject {
        guard let algorithm else { return object }
        var object = object
        if let declared = object["alg"]?.stringValue {
            guard sameCodeUnits(declared, algorithm.rawValue) else {
                throw JWTError.invalidKey("the key is for \(declared), not \(algorithm.rawValue)")
            }
        } else {
            object["alg"] = .string(algorithm.rawValue)
        }
        return object
    }
}

extension JWTKey {
    /// Loads the key in a PEM, JWK or JWKS file (format detected from the content).
    ///
    /// From a JWKS: the key whose `kid` is `keyID`, or the only key when no `keyID` is
    /// given. Otherwise `keyID`, when given, becomes the key's `kid`.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - algorithm: pins the key (a key naming another `alg` is refused).
    ///   - keyID: the `kid` to pick from a JWKS, or to give the key.
    /// - Throws: ``JWTError`` (`invalidKey`) when the file cannot be read or used.
    public static func load(contentsOf url: URL, algorithm: JWSAlgorithm? = nil, keyID: String? = nil) throws -> JWTKey {
        try JWTKeyFile(contentsOf: url).key(algorithm: algorithm, keyID: keyID)
    }
}

extension JWKSet {
    /// Loads the keys in a PEM, JWK or JWKS file (format detected from the content) as a
    /// key set: a JWKS's usable keys, or the file's one key.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - algorithm: pins the keys as ``JWTKeyFile/verificationKeys(algorithm:)`` does.
    /// - Throws: ``JWTError`` (`invalidKey`) when the file cannot be read or holds no usable key.
    public static func load(contentsOf url: URL, algorithm: JWSAlgorithm? = nil) throws -> JWKSet {
        switch try JWTKeyFile(contentsOf: url).verificationKeys(algorithm: algorithm) {
        case let set as JWKSet: return set
        case let key as JWTKey: return JWKSet(keys: [key])
        default: throw JWTError.invalidKey("the key file holds no usable key")
        }
    }
}
