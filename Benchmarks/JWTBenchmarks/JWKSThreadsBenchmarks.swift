import Benchmark
import BenchmarkSupport
import JWTKit
import LatchkeyJWT

// Verification through a JWKS cache on every core: `workers` concurrent tasks each verify
// `tokensPerWorker` tokens (signature + claims) through the cache, and a sample is the
// wall time until all finish. Per-operation figures divide by every token verified, so
// with perfect scaling the 2-worker row's time per token is half the 1-worker row's.
// Latchkey's `JWKSCache` beside jwt-kit's `JWTKeyCollection` doing the same.

let tokensPerWorker = 100

/// The threads every multi-worker sample runs on (see `WorkerThreads`), one per core.
let workerThreads = WorkerThreads(count: 2)

func registerJWKSThreads(_ fixture: JWTFixture) {
    let alg = fixture.algorithm.rawValue
    let token = fixture.token
    let options = IDToken.validation
    let jwks = "{\"keys\":[\(fixture.publicKey.jwk().jsonText)]}"
    let cache = JWKSCache { JWKSCache.Response(body: Array(jwks.utf8), cacheControl: "max-age=86400") }
    let setup: Benchmark.BenchmarkSetupHook = {
        await fixture.preparePeer()
        do { _ = try await cache.verify(token, options: options) } catch { fixtureFailure("JWKSCache: \(error)") }
    }
    for workers in [1, 2] {
        let row = [alg, workers == 1 ? "1worker" : "\(workers)workers"]
        Benchmark(
            Suite.name("JWKSThreads", row, .latchkey), configuration: Suite.configuration(warmup: 2),
            closure: { benchmark in
                try await benchmark.measureConcurrently(workers: workers) {
                    for _ in 0..<tokensPerWorker { blackHole(try await cache.verify(token, options: options)) }
                }
            }, setup: setup)
        Benchmark(
            Suite.name("JWKSThreads", row, jwtKit), configuration: Suite.configuration(warmup: 2),
            closure: { benchmark in
                let peer = fixture.peer!
                try await benchmark.measureConcurrently(workers: workers) {
                    for _ in 0..<tokensPerWorker { blackHole(try await peer.verify(token, as: CheckedIDTokenClaims.self)) }
                }
            }, setup: setup)
    }
}

extension Benchmark {
    /// One sample: `workers` child tasks on the benchmark's own threads run `body` at
    /// once; the sample counts `workers × tokensPerWorker` operations.
    func measureConcurrently(workers: Int, _ body: @escaping @Sendable () async throws -> Void) async throws {
        for _ in scaledIterations {
            let cpu = Suite.processCPUNanoseconds()
            startMeasurement()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<workers { group.addTask(executorPreference: workerThreads, operation: body) }
                try await group.waitForAll()
            }
            stopMeasurement()
            measurement(Suite.cpuTime, Suite.processCPUNanoseconds() - cpu)
            measurement(Suite.operationsPerSample, workers * tokensPerWorker)
        }
    }
}
