internal import LatchkeyCrypto
import LatchkeyJWT

/// Opaque tokens and identifiers drawn from OpenSSL's DRBG, never from a guessable source.
enum OpaqueToken {
    /// `byteCount` random bytes as base64url (32 bytes → 43 characters).
    static func make(bytes byteCount: Int = 32) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(byteCount))
    }

    /// A random UUID (version 4) as text, for provider-style identifiers such as
    /// `session-test-<uuid>`.
    static func uuid() throws -> String {
        var bytes = try SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// A human-typable code of `count` characters from an unambiguous alphabet (no 0/O, 1/I).
    static func userCode(count: Int = 8) throws -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        let bytes = try SecureRandom.bytes(count)
        let characters = bytes.map { alphabet[Int($0) % alphabet.count] }
        return String(characters[0..<count / 2]) + "-" + String(characters[(count / 2)...])
    }

    /// `count` random decimal digits (one-time passcodes).
    static func digits(_ count: Int) throws -> String {
        try SecureRandom.bytes(count).map { String(Int($0) % 10) }.joined()
    }
}
