internal import LatchkeyCrypto
internal import LatchkeyJWT

/// A Proof Key for Code Exchange (RFC 7636, S256) and the other random values of a
/// browser login (`state`, `nonce`).
///
/// The pair is made by LatchkeyCrypto's `PKCE`, the one home of the rule (the Stytch
/// magic links and the emulator's checks use it too): the verifier is 32 random bytes in
/// base64url (43 characters), the challenge base64url(SHA-256(verifier)).
package struct PKCEPair: Sendable {
    /// Sent with the code or token exchange; a secret until then.
    package let verifier: String
    /// Sent in the browser's URL.
    package let challenge: String

    /// A fresh pair.
    ///
    /// - Throws: when the system's random source fails.
    package init() throws {
        verifier = try PKCE.makeVerifier()
        challenge = PKCE.challenge(for: verifier)
    }

    /// `bytes` random bytes in base64url.
    package static func randomToken(bytes: Int) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(bytes))
    }
}
