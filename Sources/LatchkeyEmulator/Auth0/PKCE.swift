internal import LatchkeyCrypto
import LatchkeyJWT

/// Proof Key for Code Exchange (RFC 7636), S256 only.
enum PKCE {
    /// base64url(SHA-256(verifier)).
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)))
    }
}
