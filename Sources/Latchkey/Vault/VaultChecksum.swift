/// The 64-bit checksum of a binary vault record's body.
///
/// Not a MAC — the stores encrypt and authenticate (AES-GCM file, kernel keyring) — but
/// the vault's own check that the bytes are the ones it wrote, so damage is reported as a
/// malformed record rather than read as different tokens or objects: each 8-byte word
/// goes through `h = rotl(h ^ w, 31) * K`, which for a fixed word is a bijection of
/// `h` and for a fixed `h` an injection of `w`, so two bodies of the same length that
/// differ within one word (any single flipped bit, any one damaged byte) always differ
/// in the sum. Four lanes, for speed.
enum VaultChecksum {
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let seeds: (UInt64, UInt64) = (0x4C61_7463_686B_6579, 0x5661_756C_7452_6563)

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var lanes = (seeds.0 ^ UInt64(truncatingIfNeeded: count), seeds.1, seeds.0 ^ multiplier, seeds.1 ^ multiplier)
        guard let base = bytes.baseAddress else { return finish(lanes) }
        // Whole 32-byte blocks, then words, then the last bytes padded with zeros (the
        // length is in the seed, so padding cannot alias a longer body).
        let blocks = count / 32, words = count % 32 / 8
        var pointer = base
        for _ in 0..<blocks {
            lanes.0 = mix(lanes.0, word(pointer))
            lanes.1 = mix(lanes.1, word(pointer + 8))
            lanes.2 = mix(lanes.2, word(pointer + 16))
            lanes.3 = mix(lanes.3, word(pointer + 24))
            pointer += 32
        }
        for _ in 0..<words {
            lanes.0 = mix(lanes.0, word(pointer))
            pointer += 8
        }
        let tail = count % 8
        if tail > 0 {
            var last: UInt64 = 0
            for index in 0..<tail { last |= UInt64(pointer.load(fromByteOffset: index, as: UInt8.self)) << UInt64(8 * index) }
            lanes.0 = mix(lanes.0, last)
        }
        return finish(lanes)
    }

    private static func finish(_ lanes: (UInt64, UInt64, UInt64, UInt64)) -> UInt64 {
        var h = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 29
        return h
    }

    @inline(__always)
    private static func word(_ pointer: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
    }

    @inline(__always)
    private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        // Rotating before the multiply lets the compiler emit one `rol` (after it, LLVM
        // folded the shift into a second multiply: 7 instructions a word instead of 4).
        let x = h ^ word
        return (x << 31 | x >> 33) &* multiplier
    }
}
