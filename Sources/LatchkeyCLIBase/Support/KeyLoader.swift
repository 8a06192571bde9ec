import FoundationEssentials
package import LatchkeyJWT

/// Loads keys from files for the JWT commands, through LatchkeyJWT's `JWTKeyFile`
/// (which tells PEM, JWK and JWKS apart by content). Every failure exits with status 2
/// and a message that names the file and the reason but never shows the file's content.
package enum KeyLoader {
    // MARK: Verification

    /// The key or key set in `path`, pinned to `algorithm` when given: a key that names
    /// no `alg` is given this one; a key naming another `alg` is refused.
    package static func verificationKeys(path: String, algorithm: JWSAlgorithm?) throws -> any JWTKeySource {
        let file = try document(at: path)
        return try building(path) { try file.verificationKeys(algorithm: algorithm) }
    }

    // MARK: Signing

    /// The private key in `path` for `algorithm`. From a JWKS, the private key whose
    /// `kid` is `keyID`, or the only private key when no `keyID` is given. `keyID`, when
    /// given, becomes the key's `kid` (and so the token's).
    package static func signingKey(path: String, algorithm: JWSAlgorithm, keyID: String?) throws -> JWTKey {
        let file = try document(at: path)
        return try building(path) { try file.signingKey(algorithm: algorithm, keyID: keyID) }
    }

    // MARK: Secrets

    /// An HMAC key from secret bytes. The error names the secret's length, never its bytes.
    package static func hmac(_ bytes: [UInt8], algorithm: JWSAlgorithm?, keyID: String? = nil) throws -> JWTKey {
        do {
            return try JWTKey.hmac(bytes, algorithm: algorithm, keyID: keyID)
        } catch let error as JWTError {
            throw fail("secret: \(error.message)", status: ExitStatus.keyProblem)
        }
    }

    // MARK: Files

    /// Reads and classifies a key file.
    package static func document(at path: String) throws -> JWTKeyFile {
        let bytes = try readFile(path, what: "key file")
        return try building(path) { try JWTKeyFile(bytes: bytes) }
    }

    /// The bytes of `path` (at most `limit`, by default `JWTKeyFile.maximumSize`), or exit
    /// `status` (2 by default) with the system's reason.
    package static func readFile(
        _ path: String, what: String, limit: Int = JWTKeyFile.maximumSize, status: Int32 = ExitStatus.keyProblem
    ) throws -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: limit + 1) } catch {
            throw fail("cannot read \(what) \(path): \(error.reason)", status: status)
        }
        guard bytes.count <= limit else { throw fail("\(what) \(path) is larger than \(limit / 1024) KiB", status: status) }
        return bytes
    }

    // MARK: Helpers

    /// Runs `body`, turning a `JWTError` into exit 2 with the file's name.
    private static func building<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JWTError {
            throw fail("\(path): \(error.message)", status: ExitStatus.keyProblem)
        }
    }
}
