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
        var offset = 0
        while offset + 32 <= count {
            lanes.0 = mix(lanes.0, word(bytes, offset))
            lanes.1 = mix(lanes.1, word(bytes, offset + 8))
            lanes.2 = mix(lanes.2, word(bytes, offset + 16))
            lanes.3 = mix(lanes.3, word(bytes, offset + 24))
            offset += 32
        }
        while offset + 8 <= count {
            lanes.0 = mix(lanes.0, word(bytes, offset))
            offset += 8
        }
        if offset < count {
            var last: UInt64 = 0
            for index in 0..<(count - offset) { last |= UInt64(bytes.load(fromByteOffset: offset + index, as: UInt8.self)) << UInt64(8 * index) }
            lanes.0 = mix(lanes.0, last)
        }
        var h = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 29
        return h
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        // Rotating before the multiply lets the compiler emit one `rol` (after it, LLVM
        // folded the shift into a second multiply: 7 instructions a word instead of 4).
        let x = h ^ word
        return (x << 31 | x >> 33) &* multiplier
    }
}
