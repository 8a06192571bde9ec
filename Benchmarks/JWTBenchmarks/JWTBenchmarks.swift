import Benchmark
import BenchmarkSupport
import JWTKit
import LatchkeyJWT

// JWT verification beside its physical limit (the raw primitive on the same signing
// input: OpenSSL, or swift-crypto's BoringSSL for ES384 and EdDSA)
// and its peer (vapor/jwt-kit 5.8 on the same token and key), in one run.
//
// Rows per algorithm: `decode` (parse header and claims, no signature check),
// `sig` (signature only), `sig+claims` (signature and exp/nbf/iat/iss/aud).
// Then the JWKS lookup of a kid in sets of 1, 10 and 100 keys.

let benchmarks: @Sendable () -> Void = {
    for algorithm in [JWSAlgorithm.hs256, .rs256, .ps256, .es256, .es384, .edDSA] {
        registerJWT(JWTFixture(algorithm))
    }
    for count in [1, 10, 100] {
        registerJWKSLookup(keyCount: count)
    }
    for algorithm in [JWSAlgorithm.rs256, .es256] {
        registerJWKSThreads(JWTFixture(algorithm))
    }
}

let jwtKit = Suite.Role.peer("jwt-kit")

func registerJWT(_ fixture: JWTFixture) {
    let alg = fixture.algorithm.rawValue
    let token = fixture.token
    let key = fixture.publicKey
    let options = IDToken.validation
    // HMAC and decoding take a microsecond or two: time them in batches of 1,000.
    let fast = fixture.algorithm == .hs256
    let latchkeyConfig = Suite.configuration(scale: .kilo)
    let signatureConfig = Suite.configuration(scale: fast ? .kilo : .one)
    // jwt-kit's API is async: its rows under 50 µs are batched too (see
    // `Suite.asyncConfiguration`). About what its verification takes here:
    let peerMicroseconds =
        switch fixture.algorithm {
        case .hs256: 12
        case .rs256, .ps256: 25
        case .es256: 47
        case .edDSA: 61
        default: 330
        }
    let peerDecodeConfig = Suite.asyncConfiguration(microseconds: 13)
    let peerConfig = Suite.asyncConfiguration(microseconds: peerMicroseconds)
    let setup: Benchmark.BenchmarkSetupHook = { await fixture.preparePeer() }
    // Raw OpenSSL, or swift-crypto's BoringSSL for ES384 and EdDSA (what Latchkey verifies them on).
    let limit = Suite.Role.limit(fixture.limitLabel)

    // decode
    Benchmark(Suite.name("JWT", [alg, "decode"], .latchkey), configuration: latchkeyConfig) { benchmark in
        try benchmark.measure { blackHole(try JWT.decode(token)) }
    }
    Benchmark(
        Suite.name("JWT", [alg, "decode"], jwtKit), configuration: peerDecodeConfig,
        closure: { benchmark in
            let peer = fixture.peer!
            try await benchmark.measure { blackHole(try await peer.unverified(token, as: UncheckedIDTokenClaims.self)) }
        }, setup: setup)

    // signature only
    Benchmark(Suite.name("JWT", [alg, "sig"], .latchkey), configuration: signatureConfig) { benchmark in
        try benchmark.measure { blackHole(try JWS.verify(token, keys: key)) }
    }
    Benchmark(Suite.name("JWT", [alg, "sig"], limit), configuration: signatureConfig) { benchmark in
        benchmark.measure { if !fixture.rawVerify() { fixtureFailure("raw verify") } }
    }
    Benchmark(
        Suite.name("JWT", [alg, "sig"], jwtKit), configuration: peerConfig,
        closure: { benchmark in
            let peer = fixture.peer!
            try await benchmark.measure { blackHole(try await peer.verify(token, as: UncheckedIDTokenClaims.self)) }
        }, setup: setup)

    // signature and claims
    Benchmark(Suite.name("JWT", [alg, "sig+claims"], .latchkey), configuration: signatureConfig) { benchmark in
        try benchmark.measure { blackHole(try JWT.verify(token, keys: key, options: options)) }
    }
    Benchmark(Suite.name("JWT", [alg, "sig+claims"], limit), configuration: signatureConfig) { benchmark in
        benchmark.measure { if !fixture.rawVerify() { fixtureFailure("raw verify") } }
    }
    Benchmark(
        Suite.name("JWT", [alg, "sig+claims"], jwtKit), configuration: peerConfig,
        closure: { benchmark in
            let peer = fixture.peer!
            try await benchmark.measure { blackHole(try await peer.verify(token, as: CheckedIDTokenClaims.self)) }
        }, setup: setup)
}

/// Finding the key a token's `kid` names, in a set of `keyCount` P-256 keys (the last one).
func registerJWKSLookup(keyCount: Int) {
    let keys: [JWTKey]
    do {
        keys = try (0..<keyCount).map { try JWTKey.generate(for: .es256, keyID: "key-\($0)").publicKey }
    } catch {
        fixtureFailure("JWKS keys: \(error)")
    }
    let set = JWKSet(keys: keys)
    let kid = "key-\(keyCount - 1)"
    let jwksJSON = set.jsonText()
    final class PeerBox { var collection: JWTKeyCollection? }
    let box = PeerBox()
    let row = ["lookup", "\(keyCount)keys"]

    Benchmark(Suite.name("JWKS", row, .latchkey), configuration: Suite.configuration(scale: .kilo)) { benchmark in
        benchmark.measure {
            let found = set.keys(withID: kid)
            if found.isEmpty { fixtureFailure("kid not found") }
            blackHole(found)
        }
    }
    Benchmark(
        Suite.name("JWKS", row, jwtKit), configuration: Suite.configuration(scale: .kilo),
        closure: { benchmark in
            let collection = box.collection!
            let identifier = JWKIdentifier(string: kid)
            try await benchmark.measure { blackHole(try await collection.getKey(for: identifier)) }
        },
        setup: {
            let collection = JWTKeyCollection()
            do { try await collection.add(jwksJSON: jwksJSON) } catch { fixtureFailure("jwt-kit JWKS: \(error)") }
            box.collection = collection
        })
}
