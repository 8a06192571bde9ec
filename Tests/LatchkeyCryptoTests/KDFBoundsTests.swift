import LatchkeyTestSupport
import Testing

@testable import LatchkeyCrypto

/// scrypt parameters from untrusted input are refused before any memory is allocated
/// or any work done: the memory bound, overflow of 128·r·N, r·p, and N's shape.
@Suite struct KDFBoundsTests {
    static let refused: [(n: UInt64, r: UInt32, p: UInt32, why: String)] = [
        (1 << 21, 8, 1, "N = 2^21 at r = 8 needs 2 GiB"),
        (1 << 17, 1, 1, "N = 2^17 at r = 1: RFC 7914 wants N < 2^(16·r)"),
        (1 << 20, 3, 1, "r = 3 at N = 2^20 needs 384 MiB"),
        (1 << 40, 8, 1, "N = 2^40: a terabyte"),
        (1 << 62, UInt32.max, 1, "128·r·N overflows 64 bits"),
        (1 << 63, 1, 1, "N = 2^63: 128·N overflows"),
        (1 << 10, UInt32.max, UInt32.max, "r·p past 2^30"),
        (1 << 10, 1 << 15, 1 << 15, "r·p = 2^30"),
        (1 << 10, 0, 1, "r = 0"),
        (1 << 10, 1, 0, "p = 0"),
        (1, 1, 1, "N = 1"),
        (0, 1, 1, "N = 0"),
        (3 << 10, 1, 1, "N not a power of two"),
    ]

    @Test(arguments: refused)
    func outOfBoundParametersAreRefusedAtOnce(_ parameters: (n: UInt64, r: UInt32, p: UInt32, why: String)) {
        let start = threadCPUTime()
        #expect(throws: CryptoError.self, "\(parameters.why)") {
            try KeyDerivation.scrypt(
                password: Array("pw".utf8), salt: [UInt8](repeating: 1, count: 16),
                n: parameters.n, r: parameters.r, p: parameters.p, outputByteCount: 32)
        }
        // The calling thread's CPU time, not wall time: scrypt runs on it, and a busy
        // machine's preemption does not count.
        #expect(threadCPUTime() - start < .milliseconds(200), "\(parameters.why): refused without running scrypt")
    }

    @Test func theMemoryLimitIsTheCallersAndSitsExactlyAtTheBound() throws {
        // 128 · r · N = 1 MiB with N = 2^10, r = 8: accepted at a 1 MiB limit, refused at 1 MiB − 1.
        let exactly = KeyDerivation.ScryptLimits(maxMemoryBytes: 1 << 20)
        let below = KeyDerivation.ScryptLimits(maxMemoryBytes: (1 << 20) - 1)
        #expect(try KeyDerivation.scrypt(password: [1], salt: [2], n: 1 << 10, r: 8, p: 1, outputByteCount: 32, limits: exactly).count == 32)
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(password: [1], salt: [2], n: 1 << 10, r: 8, p: 1, outputByteCount: 32, limits: below)
        }
    }
}
