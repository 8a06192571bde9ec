internal import LatchkeyCrypto
internal import LatchkeyJWT

/// A Proof Key for Code Exchange (RFC 7636, S256) and the other random values of a
/// browser login (`state`, `nonce`).
///
/// The verifier is 32 random bytes in base64url (43 characters); the challenge is
/// base64url(SHA-256(verifier)). Auth0 and Stytch check the verifier against the challenge
/// the same way.
package struct PKCEPair: Sendable {
    /// Sent with the code or token exchange; a secret until then.
    package let verifier: String
    /// Sent in the browser's URL.
    package let challenge: String

    /// A fresh pair.
    ///
    /// - Throws: when the system's random source fails.
    package init() throws {
        verifier = try Self.randomToken(bytes: 32)
        challenge = Self.challenge(for: verifier)
    }

    /// base64url(SHA-256(verifier)).
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)))
    }

    /// `bytes` random bytes in base64url.
    package static func randomToken(bytes: Int) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(bytes))
    }
}
