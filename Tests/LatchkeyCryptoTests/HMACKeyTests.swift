import Testing

@testable import LatchkeyCrypto

/// `HMACKey` hashes the key's pads once and MACs each message from copies of them:
/// however often a key is used, and however many calls run at once, every MAC must be
/// the one the key defines.
@Suite struct HMACKeyTests {
    /// RFC 4231 §4.3 (test case 2) for SHA-256 and SHA-512, and §4.4 (test case 3:
    /// a 20-byte 0xaa key, 50 bytes of 0xdd).
    static let cases: [(HashAlgorithm, [UInt8], [UInt8], String)] = [
        (
            .sha256, Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            .sha512, Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        (
            .sha256, [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            .sha384, [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
            "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27"
        ),
        // §4.7 (test case 6): a 131-byte key, longer than every block, is hashed first.
        (
            .sha256, [UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            .sha384, [UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952"
        ),
        (
            .sha512, [UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        ),
        // An empty key and an empty message (Python's hmac module).
        (.sha256, [], [], "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ]

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }

    @Test func repeatedUseOfOneKeyGivesTheSameMAC() throws {
        for (algorithm, key, message, expected) in Self.cases {
            let hmac = try HMACKey(algorithm: algorithm, key: key)
            for _ in 0..<50 { #expect(Self.hex(try hmac.authenticationCode(for: message)) == expected) }
            // A different message in between must not leave anything behind.
            _ = try hmac.authenticationCode(for: [UInt8](repeating: 1, count: 1000))
            #expect(Self.hex(try hmac.authenticationCode(for: message)) == expected)
        }
    }

    @Test func concurrentCallersShareOneKey() async throws {
        let hmac = try HMACKey(algorithm: .sha256, key: Array("Jefe".utf8))
        let other = try HMACKey(algorithm: .sha256, key: [UInt8](repeating: 0xAA, count: 20))
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<2000 {
                group.addTask {
                    let first = index.isMultiple(of: 2)
                    let (key, message, expected) =
                        first
                        ? (hmac, Array("what do ya want for nothing?".utf8), Self.cases[0].3)
                        : (other, [UInt8](repeating: 0xDD, count: 50), Self.cases[2].3)
                    return (try? Self.hex(key.authenticationCode(for: message))) == expected
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 2000)
        #expect(results.allSatisfy { $0 })
    }

    /// A flipped bit anywhere in the code (each word of the comparison), a code one byte
    /// short or long, or an empty one: refused, for every size of MAC.
    @Test(arguments: [HashAlgorithm.sha256, .sha384, .sha512])
    func aWrongCodeIsRefused(algorithm: HashAlgorithm) throws {
        let hmac = try HMACKey(algorithm: algorithm, key: Array("Jefe".utf8))
        let message = Array("what do ya want for nothing?".utf8)
        func valid(_ code: [UInt8]) throws -> Bool {
            try code.withUnsafeBytes { code in try message.withUnsafeBytes { try hmac.isValidAuthenticationCode(code, for: $0) } }
        }
        var code = try hmac.authenticationCode(for: message)
        for index in code.indices {
            for bit in [0, 7] as [UInt8] {
                code[index] ^= 1 << bit
                #expect(try !valid(code), "byte \(index), bit \(bit)")
                code[index] ^= 1 << bit
            }
        }
        #expect(try valid(code))
        #expect(try !valid(Array(code.dropLast())))
        #expect(try !valid(code + [0]))
        #expect(try !valid([]))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
