import Foundation
import LatchkeyJWT
import Testing

/// ECDSA signatures are malleable: (r, s) and (r, n − s) both verify. SECURITY.md tells
/// users what that means — a token's string is not its identity — and this test holds
/// the document to the library's behaviour.
@Suite struct MalleabilityTests {
    /// The order n of P-256, big-endian.
    static let p256Order: [UInt8] = Array(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// n − s for 32-byte big-endian numbers with s < n.
    static func negate(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var digit = Int(p256Order[index]) - Int(s[s.startIndex + index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[index] = UInt8(digit)
        }
        return result
    }

    @Test func anES256TokenHasASecondValidSpellingWithTheSameClaims() throws {
        let key = try JWTKey.generate(for: .es256, keyID: "ec")
        let token = try JWT.sign(["sub": "alice", "jti": "one-time-1"], key: key)
        let parts = token.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let twin = parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature[0..<32]) + Self.negate(signature[32..<64]))
        #expect(twin != token, "a different string…")
        let original = try JWT.verify(token, keys: key.publicKey)
        let verified = try JWT.verify(twin, keys: key.publicKey)
        #expect(verified.claims.object == original.claims.object, "…with the same claims, verified by the same key")
        #expect(verified.claims["jti"] == "one-time-1", "replay protection must key on jti or the signing input, not the token string")
        // What is not malleable: the signed part.
        #expect(twin.prefix(upTo: twin.lastIndex(of: ".")!) == token.prefix(upTo: token.lastIndex(of: ".")!))
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }
}
