import Benchmark
@_spi(Benchmarks) import BenchmarkFixtures
import BenchmarkSupport
import CBenchOpenSSL
import Glibc
import LatchkeySecrets

// Token decryption: loading a stored session (about 2 KB: tokens, user, session) from
// the encrypted file store and decoding it with the session core's vault codec, beside
// the by-hand limit — open, read, close the same file and AES-256-GCM-open its bytes
// with OpenSSL — and saving one (encode, seal, atomic write) beside a by-hand seal and
// atomic write of the same bytes.
//
// Rows: `load` (store read + decode), `read` (store read alone, to split the cost),
// `save` (encode + store write).

/// The codec under test: the session core's `VaultRecord`; see ``SessionRecordCodec``.
let codec = VaultSessionRecordCodec()

let benchmarks: @Sendable () -> Void = {
    let fixture = VaultFixture()
    let setup: Benchmark.BenchmarkSetupHook = { try await fixture.prepare() }
    let limit = Suite.Role.limit("open+read+AES-GCM")
    // Both sides of each row in samples of 1,000 calls (see `Suite.asyncConfiguration`).
    let config = Suite.asyncConfiguration(microseconds: 5)

    Benchmark(
        Suite.name("Vault", ["load", "2KB"], .latchkey), configuration: config,
        closure: { benchmark in
            let store = fixture.store!
            try await benchmark.measure {
                guard let bytes = try await store.get(VaultFixture.entry) else { fixtureFailure("no record") }
                blackHole(try codec.decode(bytes))
            }
        }, setup: setup)
    Benchmark(
        Suite.name("Vault", ["load", "2KB"], limit), configuration: config,
        closure: { benchmark in
            benchmark.measure { blackHole(fixture.openByHand()) }
        }, setup: setup)

    Benchmark(
        Suite.name("Vault", ["read", "2KB"], .latchkey), configuration: config,
        closure: { benchmark in
            let store = fixture.store!
            try await benchmark.measure { blackHole(try await store.get(VaultFixture.entry)) }
        }, setup: setup)
    Benchmark(
        Suite.name("Vault", ["read", "2KB"], limit), configuration: config,
        closure: { benchmark in
            benchmark.measure { blackHole(fixture.openByHand()) }
        }, setup: setup)

    let slow = Suite.configuration(warmup: 2)
    // Two records, alternated (as renewals change the record): the store skips a write
    // that changes nothing.
    let records = Alternator(codec.samples[0], codec.samples[1])
    Benchmark(
        Suite.name("Vault", ["save", "2KB"], .latchkey), configuration: slow,
        closure: { benchmark in
            let store = fixture.store!
            try await benchmark.measure { try await store.set(VaultFixture.entry, codec.encode(records.next())) }
        }, setup: setup)
    Benchmark(
        Suite.name("Vault", ["save", "2KB"], .limit("seal+atomic-write")), configuration: slow,
        closure: { benchmark in
            benchmark.measure { fixture.saveByHand(codec.encode(records.next())) }
        }, setup: setup)
}
