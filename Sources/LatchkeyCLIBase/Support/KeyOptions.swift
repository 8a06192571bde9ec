package import ArgumentParser
import FoundationEssentials
import Glibc
package import LatchkeyJWT

/// Where a command's key comes from: `--key FILE`, `--secret TEXT` or `--secret-file
/// FILE`, exactly one. Shared by `verify` and `sign`.
package struct KeyOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "A PEM, JWK or JWKS file (the format is detected from the content).",
            valueName: "file"))
    package var key: String?

    @Option(
        help: ArgumentHelp(
            "An HMAC secret, as text (its UTF-8 bytes; write --secret=TEXT when it starts with -). Other users can see it in the process list: prefer --secret-file.",
            valueName: "text"))
    package var secret: String?

    @Option(
        help: ArgumentHelp(
            "A file whose bytes, exactly (a trailing newline included), are the HMAC secret.",
            valueName: "file"))
    package var secretFile: String?

    package func validate() throws {
        let given = [key.map { _ in "--key" }, secret.map { _ in "--secret" }, secretFile.map { _ in "--secret-file" }].compactMap { $0 }
        guard given.count == 1 else {
            throw ValidationError(
                given.isEmpty
                    ? "give a key: --key FILE, --secret TEXT or --secret-file FILE"
                    : "give only one of \(given.joined(separator: ", "))")
        }
    }

    /// Checks that the options can carry `algorithm` (a secret only carries HS*).
    package func validate(algorithm: AlgorithmArgument?) throws {
        if let algorithm, key == nil, !algorithm.isHMAC {
            throw ValidationError("a secret only works with HS256, HS384 or HS512, not \(algorithm.algorithm.rawValue)")
        }
    }

    /// The HMAC secret's bytes, when the key is a secret.
    private func secretBytes() throws -> [UInt8]? {
        if let secret { return Array(secret.utf8) }
        if let secretFile { return try KeyLoader.readFile(secretFile, what: "secret file") }
        return nil
    }

    /// The key(s) to verify with, pinned to `algorithm` when given. Exit 2 when the key
    /// cannot be read or used.
    package func verificationKeys(algorithm: JWSAlgorithm?) throws -> any JWTKeySource {
        if let bytes = try secretBytes() { return try KeyLoader.hmac(bytes, algorithm: algorithm) }
        return try KeyLoader.verificationKeys(path: key!, algorithm: algorithm)
    }

    /// The key to sign with, for `algorithm`, carrying `keyID` when given. Exit 2 when the
    /// key cannot be read, cannot sign, or does not fit the algorithm.
    package func signingKey(algorithm: JWSAlgorithm, keyID: String?) throws -> JWTKey {
        if let bytes = try secretBytes() { return try KeyLoader.hmac(bytes, algorithm: algorithm, keyID: keyID) }
        return try KeyLoader.signingKey(path: key!, algorithm: algorithm, keyID: keyID)
    }
}
