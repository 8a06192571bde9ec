internal import LatchkeyCrypto

/// SplitMix64: the soak's one source of randomness. Every decision the parent makes
/// (intents, bans, kills) and every store fault draws from a generator seeded by the run's
/// seed and a stream name, so the same seed makes the same decisions whatever the
/// concurrency did.
struct SoakRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// A generator for `stream` (a user ID, "kills", …) of the run seeded with `seed`.
    init(seed: UInt64, stream: String, incarnation: Int = 0) {
        generator = SplitMix64(seed: seed ^ Self.hash(stream) ^ (UInt64(truncatingIfNeeded: incarnation) &* 0xD1B5_4A32_D192_ED03))
    }

    mutating func next() -> UInt64 { generator.next() }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { generator.nextUnit() }

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
