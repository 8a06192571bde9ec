import Foundation
import LatchkeyCrypto
import Testing

@testable import Latchkey

/// Truncated, damaged and forged format-2 records are refused with an error — never a
/// trap, never a misread record.
@Suite struct VaultRecordDamageTests {
    static let record = VaultRecordTests.full
    static let bytes = record.encoded()

    /// `body` behind a valid header and checksum: damage the checksum cannot catch,
    /// so the reader's own bounds checks are what is tested.
    static func sealed(_ body: [UInt8]) -> [UInt8] {
        var bytes = VaultRecordTests.magic + [2, 0] + [UInt8](repeating: 0, count: 8) + body
        let sum = bytes.withUnsafeBytes { VaultChecksum.of(UnsafeRawBufferPointer(rebasing: $0[14...])) }
        withUnsafeBytes(of: sum.littleEndian) { for index in 0..<8 { bytes[6 + index] = $0[index] } }
        return bytes
    }

    static var body: [UInt8] { Array(bytes[14...]) }

    static func expectMalformed(_ bytes: [UInt8], _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let record = try VaultRecord.decode(bytes, expectedProvider: "stytch")
            Issue.record("decoded a damaged record (\(record.tokens)) \(comment.map { "— \($0)" } ?? "")", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description.hasPrefix("the stored session is malformed"), comment, sourceLocation: sourceLocation)
        }
    }

    static func expectRefused(_ bytes: [UInt8], _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: VaultError.self, comment, sourceLocation: sourceLocation) { try VaultRecord.decode(bytes, expectedProvider: "stytch") }
    }

    @Test func theSealedTestBodyIsTheRecordItself() throws {
        #expect(Self.sealed(Self.body) == Self.bytes)
    }

    @Test func truncationAtEveryOffsetIsMalformed() {
        for length in 0..<Self.bytes.count { Self.expectMalformed(Array(Self.bytes[..<length]), "cut at \(length)") }
    }

    @Test func truncationPastTheChecksumIsCaughtByTheReader() {
        // Resealed, each prefix of the body reaches the reader, which must find it short.
        for length in 0..<Self.body.count { Self.expectMalformed(Self.sealed(Array(Self.body[..<length])), "body cut at \(length)") }
        Self.expectMalformed(Self.sealed(Self.body + [0]), "a trailing byte")
    }

    @Test func everySingleBitFlipIsRefused() {
        for index in Self.bytes.indices {
            for bit in 0..<8 {
                var damaged = Self.bytes
                damaged[index] ^= 1 << UInt8(bit)
                // The format bytes give "newer format" for some flips; all else is malformed.
                if index == 4 || index == 5 {
                    Self.expectRefused(damaged, "bit \(bit) of byte \(index)")
                } else {
                    Self.expectMalformed(damaged, "bit \(bit) of byte \(index)")
                }
            }
        }
    }

    @Test func randomDamageIsRefused() {
        var random = SplitMix64(seed: 18)
        for round in 0..<2_000 {
            var damaged = Self.bytes
            let flips = Int.random(in: 2...16, using: &random)
            for _ in 0..<flips { damaged[Int.random(in: 6..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            Self.expectMalformed(damaged, "round \(round)")
        }
    }

    @Test func garbageBodiesBehindAValidChecksumAreMalformed() {
        var random = SplitMix64(seed: 2)
        for round in 0..<2_000 {
            let length = Int.random(in: 0...300, using: &random)
            var body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Half of them start like a real record (at least its provider, which would
            // otherwise be refused as another provider's), so the garbage lands deeper in.
            if round.isMultiple(of: 2) { body = Array(Self.body.prefix(Int.random(in: 10...200, using: &random))) + body }
            Self.expectMalformed(Self.sealed(body), "round \(round)")
        }
    }

    @Test func forgedLengthsCountsAndValuesAreMalformed() {
        let provider: [UInt8] = [6, 0, 0, 0] + Array("stytch".utf8)
        let token: [UInt8] = [1, 0, 0, 0, 0x41]
        let noString: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        let tokensWithoutAttributes = token + noString + noString + noString + [0, 0]
        func block(_ text: String) -> [UInt8] { [UInt8(text.utf8.count), 0, 0, 0] + Array(text.utf8) }
        let cases: [(String, [UInt8])] = [
            ("a provider length near 4 GiB", [0xFE, 0xFF, 0xFF, 0xFF] + Array("stytch".utf8)),
            ("a token length past the end", provider + [0x00, 0x10, 0x00, 0x00, 0x41]),
            ("an attribute count near 4 GiB", provider + tokensWithoutAttributes + [0xFF, 0xFF, 0xFF, 0x7F]),
            ("an attribute count past the end", provider + tokensWithoutAttributes + [3, 0, 0, 0] + [1, 0, 0, 0, 0x61]),
            (
                "a repeated attribute",
                provider + tokensWithoutAttributes + [2, 0, 0, 0] + [1, 0, 0, 0, 0x61, 0, 0, 0, 0] + [1, 0, 0, 0, 0x61, 0, 0, 0, 0] + [0, 0]
            ),
            ("a flag of 2", provider + token + noString + noString + noString + [2]),
            ("a NaN time", provider + token + noString + noString + noString + [1] + [0, 0, 0, 0, 0, 0, 0xF8, 0x7F]),
            ("an infinite time", provider + token + noString + noString + noString + [1] + [0, 0, 0, 0, 0, 0, 0xF0, 0x7F]),
            ("invalid UTF-8", provider + [2, 0, 0, 0, 0xC3, 0x28] + noString + noString + noString + [0, 0]),
            ("an unknown object", provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x20]),
            (
                "a user whose raw is not an object",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("[]")
                    + [1, 0, 0, 0, 0x75] + noString + noString + noString + [0, 0, 0, 0, 2, 0, 0, 0]
            ),
            (
                "a user whose raw length is near 4 GiB",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("{}")
                    + [1, 0, 0, 0, 0x75] + noString + noString + noString + [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFE]
            ),
            (
                "a user whose raw starts past the block",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("{}")
                    + [1, 0, 0, 0, 0x75] + noString + noString + noString + [0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0]
            ),
            (
                "a user whose raw ends past the block",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("{}")
                    + [1, 0, 0, 0, 0x75] + noString + noString + noString + [1, 0, 0, 0, 2, 0, 0, 0]
            ),
            (
                "a user without a JSON block",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("")
                    + [1, 0, 0, 0, 0x75] + noString + noString + noString + [0, 0, 0, 0, 2, 0, 0, 0]
            ),
            ("a JSON block past the end", provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + [0x40, 0, 0, 0] + Array("{}".utf8)),
            (
                "a role count near 4 GiB",
                provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x01] + block("[]{}")
                    + noString + [1, 0, 0, 0, 0x75] + [0, 0, 0] + [0, 0, 0, 0, 2, 0, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF]
            ),
        ]
        for (name, body) in cases { Self.expectMalformed(Self.sealed(body), Comment(rawValue: name)) }
        // The smallest valid body, to show the cases above fail for the reason they name.
        let minimal =
            provider + tokensWithoutAttributes + [0, 0, 0, 0] + [0] + [0x02] + block("{}") + [1, 0, 0, 0, 0x75] + noString
            + noString + noString + [0, 0, 0, 0, 2, 0, 0, 0]
        #expect(throws: Never.self) { try VaultRecord.decode(Self.sealed(minimal), expectedProvider: "stytch") }
    }
}
