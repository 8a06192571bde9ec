internal import LatchkeyCrypto
import LatchkeyJWT

/// Proof Key for Code Exchange (RFC 7636), S256 only.
enum PKCE {
    /// base64url(SHA-256(verifier)).
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)))
    }

    /// Whether `verifier` hashes to `challenge`, compared without an early exit (the
    /// challenge is what the code is bound to; `==` would stop at the first difference).
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        constantTimeEquals(Self.challenge(for: verifier), challenge)
    }
}
