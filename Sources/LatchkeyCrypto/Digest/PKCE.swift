/// Proof Key for Code Exchange (RFC 7636), S256 only: the one home of the rule for the
/// adapters that make pairs (Stytch magic links) and the emulator that checks them.
package enum PKCE {
    /// A fresh verifier: 32 random bytes, base64url (43 characters).
    ///
    /// - Throws: ``CryptoError`` when the system's random source fails.
    package static func makeVerifier() throws -> String {
        Base64.encode(try SecureRandom.bytes(32), alphabet: .url)
    }

    /// base64url(SHA-256(verifier)).
    package static func challenge(for verifier: String) -> String {
        Base64.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)), alphabet: .url)
    }

    /// Whether `verifier` hashes to `challenge`, compared in time that depends only on
    /// the length (the challenge is what a code is bound to).
    package static func verifies(_ verifier: String, challenge: String) -> Bool {
        let computed = Array(Self.challenge(for: verifier).utf8), expected = Array(challenge.utf8)
        return computed.withUnsafeBytes { a in expected.withUnsafeBytes { b in constantTimeEquals(a, b) } }
    }
}
