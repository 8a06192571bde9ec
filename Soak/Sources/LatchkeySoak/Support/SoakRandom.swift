/// SplitMix64: the soak's one source of randomness. Every decision the parent makes
/// (intents, bans, kills) and every store fault draws from a generator seeded by the run's
/// seed and a stream name, so the same seed makes the same decisions whatever the
/// concurrency did.
///
/// The generator is the same as LatchkeyCrypto's `SplitMix64` (so a seed makes the same
/// decisions as before the soak became a package of its own), written here because that
/// one is `package`, out of reach of a sibling package; it decides nothing about security.
struct SoakRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for `stream` (a user ID, "kills", …) of the run seeded with `seed`.
    init(seed: UInt64, stream: String, incarnation: Int = 0) {
        state = seed ^ Self.hash(stream) ^ (UInt64(truncatingIfNeeded: incarnation) &* 0xD1B5_4A32_D192_ED03)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool { probability > 0 && unit() < probability }

    /// FNV-1a of the UTF-8 bytes: stable across runs and processes (unlike `Hasher`).
    static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        return value
    }
}
