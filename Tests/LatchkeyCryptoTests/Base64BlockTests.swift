import Testing

@testable import LatchkeyCrypto

/// base64url's bulk is decoded 32 characters at a time with AVX2 (`CLatchkeyBase64`),
/// the rest by the scalar loop. Both must agree with RFC 4648 §5 character by
/// character: checked here against a reference that reads the alphabet one character
/// at a time, for every byte value at every position of a block, at every length
/// around the block boundaries.
@Suite struct Base64BlockTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet, -1 outside it.
    static let values: [Int] = (0...255).map { byte in alphabet.firstIndex(of: UInt8(byte)) ?? -1 }

    /// RFC 4648 §5, one character at a time; nil for anything outside it, an impossible
    /// length or non-zero trailing bits.
    static func reference(_ text: [UInt8]) -> [UInt8]? {
        var bits: UInt32 = 0, count = 0
        var out: [UInt8] = []
        for char in text {
            let value = values[Int(char)]
            guard value >= 0 else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
                bits &= (1 << UInt32(count)) - 1
            }
        }
        guard count < 6, bits == 0 else { return nil }
        return out
    }

    static func decode(_ text: [UInt8]) -> [UInt8]? { text.withUnsafeBytes { Base64.decodeURL($0) } }
    static func isValid(_ text: [UInt8]) -> Bool { text.withUnsafeBytes { Base64.isValidURL($0) } }

    /// A text of `count` characters whose bytes encode something (trailing bits zero).
    static func text(count: Int, seed: inout SplitMix64) -> [UInt8] {
        let bytes = (0..<(count * 3 / 4)).map { _ in UInt8(truncatingIfNeeded: seed.next()) }
        let encoded = Array(Base64.encode(bytes, alphabet: .url).utf8)
        return encoded
    }

    @Test func everyByteAtEveryPositionOfABlock() {
        var seed = SplitMix64(seed: 1)
        for length in [32, 64] {
            let valid = Self.text(count: length, seed: &seed)
            for position in 0..<length {
                for byte in 0...255 {
                    var text = valid
                    text[position] = UInt8(byte)
                    let expected = Self.reference(text)
                    #expect(Self.decode(text) == expected, "byte \(byte) at \(position) of \(length)")
                    #expect(Self.isValid(text) == (expected != nil), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func everyLengthAroundTheBlocks() {
        var seed = SplitMix64(seed: 2)
        for length in 0...200 {
            let text = Self.text(count: length, seed: &seed)
            let expected = Self.reference(text)
            #expect(expected != nil)
            #expect(Self.decode(text) == expected, "length \(length)")
            #expect(Self.isValid(text), "length \(length)")
            // Into a buffer of exactly the decoded size (no room for a block's slack).
            if let expected {
                var out = [UInt8](repeating: 0, count: expected.count)
                let written = text.withUnsafeBytes { input in out.withUnsafeMutableBytes { Base64.decodeURL(input, into: $0) } }
                #expect(written == expected.count && out == expected, "length \(length) into an exact buffer")
            }
        }
    }

    @Test func impossibleLengthsAndTrailingBits() {
        var seed = SplitMix64(seed: 3)
        for length in stride(from: 33, through: 161, by: 4) {  // 4n+1 characters
            let text = Self.text(count: length - 1, seed: &seed) + [UInt8(ascii: "A")]
            #expect(Self.decode(text) == nil)
            #expect(!Self.isValid(text))
        }
        // 34 characters: one block, then two that must leave their low 4 bits zero.
        let block = Array(repeating: UInt8(ascii: "A"), count: 32)
        #expect(Self.decode(block + Array("AQ".utf8)) == Array(repeating: 0, count: 24) + [1])
        #expect(Self.decode(block + Array("AR".utf8)) == nil)
    }
}
