import Testing

@testable import LatchkeyCrypto

/// The one byte comparison secrets go through (`CRYPTO_memcmp` behind a length check),
/// and the HMAC tag check that uses it: equal, unequal anywhere, other lengths, empty.
@Suite struct ConstantTimeTests {
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in constantTimeEquals(x, y) } }
    }

    @Test func bytesCompareByContentAndLength() {
        let tag = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(Self.equal(tag, tag))
        #expect(Self.equal(Array(tag), tag.map { $0 }))
        #expect(Self.equal([], []))
        for index in [0, 1, 15, 30, 31] {
            var other = tag
            other[index] ^= 0x01
            #expect(!Self.equal(tag, other), "a difference at byte \(index)")
        }
        #expect(!Self.equal(tag, Array(tag.dropLast())), "a prefix is not equal")
        #expect(!Self.equal(Array(tag.dropLast()), tag))
        #expect(!Self.equal(tag, tag + [0]), "a longer buffer is not equal")
        #expect(!Self.equal([], [0]))
        #expect(!Self.equal([0], []))
    }

    @Test(arguments: [HashAlgorithm.sha256, .sha384, .sha512])
    func hmacTagsAreCheckedWholeAndAtTheirOwnLength(algorithm: HashAlgorithm) throws {
        let key = try HMACKey(algorithm: algorithm, key: [UInt8](repeating: 0x5A, count: 64))
        let message = Array("header.payload".utf8)
        let tag = try key.authenticationCode(for: message)
        func valid(_ code: [UInt8]) throws -> Bool {
            try code.withUnsafeBytes { c in try message.withUnsafeBytes { m in try key.isValidAuthenticationCode(c, for: m) } }
        }
        #expect(try valid(tag))
        for index in [0, tag.count / 2, tag.count - 1] {
            var forged = tag
            forged[index] ^= 0x80
            #expect(try !valid(forged), "a flipped bit at byte \(index)")
        }
        // A truncated tag (even the first 16 bytes of the right one), an extended one,
        // and an empty one are refused before any comparison of content.
        #expect(try !valid(Array(tag.prefix(16))))
        #expect(try !valid(Array(tag.dropLast())))
        #expect(try !valid(tag + [0]))
        #expect(try !valid([]))
        // The tag of another message is refused.
        #expect(try !valid(try key.authenticationCode(for: Array("header.payloae".utf8))))
    }
}
