import Foundation
import LatchkeyJWT

/// Loads keys for the JWT commands: a PEM, JWK or JWKS file, or a secret.
enum KeyFile {
    /// Reads `path` and builds a key source, detecting the format from the content.
    static func load(_ path: String, algorithm: JWSAlgorithm?) throws -> any JWTKeySource {
        let text = try readText(path)
        do {
            if text.contains("-----BEGIN ") { return try JWTKey(pem: text, algorithm: algorithm) }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.hasPrefix("{") else { throw fail("\(path): not a PEM, JWK or JWKS file", code: keyErrorExitCode) }
            if trimmed.contains("\"keys\"") {
                let set = try JWKSet(json: trimmed)
                guard !set.keys.isEmpty else { throw fail("\(path): the JWKS has no usable key", code: keyErrorExitCode) }
                return set
            }
            return try JWTKey(jwkJSON: trimmed)
        } catch let error as JWTError {
            throw fail("\(path): \(error.message)", code: keyErrorExitCode)
        }
    }

    /// Loads a single signing key from a PEM or JWK file.
    static func loadSigningKey(_ path: String, algorithm: JWSAlgorithm?, keyID: String?) throws -> JWTKey {
        let text = try readText(path)
        do {
            if text.contains("-----BEGIN ") { return try JWTKey(pem: text, algorithm: algorithm, keyID: keyID) }
            var jwk = try JWK(json: text.trimmingCharacters(in: .whitespacesAndNewlines)).object
            if let keyID { jwk["kid"] = .string(keyID) }
            if let algorithm, jwk["alg"] == nil { jwk["alg"] = .string(algorithm.rawValue) }
            return try JWTKey(jwk: JWK(object: jwk))
        } catch let error as JWTError {
            throw fail("\(path): \(error.message)", code: keyErrorExitCode)
        }
    }

    /// An HMAC key from a secret given as text.
    static func secret(_ bytes: [UInt8], algorithm: JWSAlgorithm?, keyID: String? = nil) throws -> JWTKey {
        do {
            return try JWTKey.hmac(bytes, algorithm: algorithm, keyID: keyID)
        } catch let error as JWTError {
            throw fail(error.message, code: keyErrorExitCode)
        }
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail("cannot read key file \(path)", code: keyErrorExitCode)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JWSAlgorithm {
    /// Parses `--alg`, case-insensitively except for the Ed25519/EdDSA names.
    static func parse(_ text: String) -> JWSAlgorithm? {
        JWSAlgorithm(rawValue: text) ?? JWSAlgorithm.allCases.first { $0.rawValue.lowercased() == text.lowercased() }
    }
}
