import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// Loads keys from files for the JWT commands. The format is detected from the content:
/// a PEM block (`-----BEGIN …`), a JSON object with `keys` (a JWKS), or a JSON object
/// with `kty` (a JWK). Every failure exits with status 2 and a message that names the
/// file and the reason but never shows the file's content.
enum KeyLoader {
    /// Key files larger than this are refused before reading further (a JWKS of a few
    /// hundred keys is well under it).
    static let maximumFileSize = 1 << 20

    /// What a key file turned out to hold.
    enum Document {
        case pem(String)
        case jwk(JSONObject)
        case jwks([JSONValue])
    }

    // MARK: Verification

    /// The key or key set in `path`, pinned to `algorithm` when given: a key that names
    /// no `alg` is given this one; a key naming another `alg` is refused.
    static func verificationKeys(path: String, algorithm: JWSAlgorithm?) throws -> any JWTKeySource {
        switch try document(at: path) {
        case .pem(let text):
            return try building(path) { try JWTKey(pem: text, algorithm: algorithm) }
        case .jwk(let object):
            return try building(path) { try JWTKey(jwk: JWK(object: pinned(object, to: algorithm, path: path))) }
        case .jwks(let entries):
            // Pin only the entries that can carry the algorithm; the others stay as they
            // are, and the algorithm allow-list refuses them at verification.
            let adjusted = entries.map { entry -> JSONValue in
                guard let algorithm, case .object(let object) = entry, object["alg"] == nil else { return entry }
                var pinned = object
                pinned["alg"] = .string(algorithm.rawValue)
                return (try? JWTKey(jwk: JWK(object: pinned))) == nil ? entry : .object(pinned)
            }
            let set = try building(path) { try JWKSet(json: JSONValue.object(["keys": .array(adjusted)]).jsonText) }
            guard !set.keys.isEmpty else {
                let reason = set.skipped.first.map { ": key #\($0.index): \($0.reason)" } ?? ""
                throw fail("\(path): the JWKS has no usable key\(reason)", status: ExitStatus.keyProblem)
            }
            return set
        }
    }

    // MARK: Signing

    /// The private key in `path` for `algorithm`. From a JWKS, the private key whose
    /// `kid` is `keyID`, or the only private key when no `keyID` is given. `keyID`, when
    /// given, becomes the key's `kid` (and so the token's).
    static func signingKey(path: String, algorithm: JWSAlgorithm, keyID: String?) throws -> JWTKey {
        let key: JWTKey
        switch try document(at: path) {
        case .pem(let text):
            key = try building(path) { try JWTKey(pem: text, algorithm: algorithm, keyID: keyID) }
        case .jwk(let object):
            key = try signingKey(jwk: object, algorithm: algorithm, keyID: keyID, path: path)
        case .jwks(let entries):
            let privateEntries = entries.compactMap(\.objectValue).filter { $0["d"] != nil || $0["k"] != nil }
            let chosen: [JSONObject]
            if let keyID {
                chosen = privateEntries.filter { $0["kid"]?.stringValue == keyID }
            } else {
                chosen = privateEntries
            }
            guard chosen.count == 1, let object = chosen.first else {
                let problem = chosen.isEmpty
                    ? "no private key\(keyID.map { " with kid \"\($0)\"" } ?? "")"
                    : "\(chosen.count) private keys; choose one with --kid"
                throw fail("\(path): the JWKS has \(problem)", status: ExitStatus.keyProblem)
            }
            key = try signingKey(jwk: object, algorithm: algorithm, keyID: keyID, path: path)
        }
        guard key.canSign else {
            throw fail("\(path): this key cannot sign (it is a public key, or its use/key_ops forbid signing)", status: ExitStatus.keyProblem)
        }
        return key
    }

    private static func signingKey(jwk object: JSONObject, algorithm: JWSAlgorithm, keyID: String?, path: String) throws -> JWTKey {
        var object = try pinned(object, to: algorithm, path: path)
        if let keyID { object["kid"] = .string(keyID) }
        return try building(path) { try JWTKey(jwk: JWK(object: object)) }
    }

    // MARK: Secrets

    /// An HMAC key from secret bytes. The error names the secret's length, never its bytes.
    static func hmac(_ bytes: [UInt8], algorithm: JWSAlgorithm?, keyID: String? = nil) throws -> JWTKey {
        do {
            return try JWTKey.hmac(bytes, algorithm: algorithm, keyID: keyID)
        } catch let error as JWTError {
            throw fail("secret: \(error.message)", status: ExitStatus.keyProblem)
        }
    }

    // MARK: Files

    /// Reads and classifies a key file.
    static func document(at path: String) throws -> Document {
        let text = String(decoding: try readFile(path, what: "key file"), as: UTF8.self)
        if text.contains("-----BEGIN ") { return .pem(text) }
        guard let value = try? JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              case .object(let object) = value
        else {
            throw fail("\(path): not a PEM, JWK or JWKS file", status: ExitStatus.keyProblem)
        }
        if let keys = object["keys"] {
            guard case .array(let entries) = keys else {
                throw fail("\(path): the JWKS \"keys\" member is not an array", status: ExitStatus.keyProblem)
            }
            return .jwks(entries)
        }
        guard object["kty"] != nil else {
            throw fail("\(path): a JSON object that is neither a JWK (no \"kty\") nor a JWKS (no \"keys\")", status: ExitStatus.keyProblem)
        }
        return .jwk(object)
    }

    /// The bytes of `path` (at most `maximumFileSize`), or exit 2 with the system's reason.
    static func readFile(_ path: String, what: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fail("cannot read \(what) \(path): \(String(cString: strerror(errno)))", status: ExitStatus.keyProblem) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw fail("cannot read \(what) \(path): \(String(cString: strerror(errno)))", status: ExitStatus.keyProblem)
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            guard bytes.count <= maximumFileSize else {
                throw fail("\(what) \(path) is larger than \(maximumFileSize / 1024) KiB", status: ExitStatus.keyProblem)
            }
        }
        return bytes
    }

    // MARK: Helpers

    /// `object` with `alg` set to `algorithm` when it names none; refused when it names another.
    private static func pinned(_ object: JSONObject, to algorithm: JWSAlgorithm?, path: String) throws -> JSONObject {
        guard let algorithm else { return object }
        var object = object
        if let declared = object["alg"]?.stringValue {
            guard declared == algorithm.rawValue else {
                throw fail("\(path): the key is for \(declared), not \(algorithm.rawValue)", status: ExitStatus.keyProblem)
            }
        } else {
            object["alg"] = .string(algorithm.rawValue)
        }
        return object
    }

    /// Runs `body`, turning a `JWTError` into exit 2 with the file's name.
    private static func building<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JWTError {
            throw fail("\(path): \(error.message)", status: ExitStatus.keyProblem)
        }
    }
}
