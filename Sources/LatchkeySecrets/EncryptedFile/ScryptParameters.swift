public import Foundation

/// scrypt cost parameters for passphrase-protected secret files.
///
/// The parameters are stored in each file's header. Because a header is untrusted
/// input, parameters are bounded both when configured and when read: N at most 2^20,
/// r at most 32, p at most 16, and the memory scrypt needs (128 · r · N bytes) at most
/// 256 MiB, so a crafted file cannot make the reader allocate gigabytes or spin for
/// minutes.
public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
    /// log2 of the CPU/memory cost N.
    public let log2N: UInt8
    /// The block size r.
    public let r: UInt32
    /// The parallelism p.
    public let p: UInt32

    /// The largest log2 N accepted: N = 2^20.
    public static let maxLog2N: UInt8 = 20
    /// The largest block size accepted.
    public static let maxR: UInt32 = 32
    /// The largest parallelism accepted.
    public static let maxP: UInt32 = 16
    /// The most memory (128 · r · N bytes) accepted: 256 MiB.
    public static let maxMemoryBytes: UInt64 = 256 << 20

    /// N = 2^15, r = 8, p = 1: 32 MiB and roughly 0.1 s on a current machine, paid once
    /// per process (the derived key is cached).
    public static let `default` = ScryptParameters(unchecked: 15, r: 8, p: 1)

    /// Parameters for new files.
    /// - Throws: ``OutOfBounds`` when a parameter is outside the bounds above.
    public init(log2N: UInt8, r: UInt32, p: UInt32) throws(OutOfBounds) {
        self.init(unchecked: log2N, r: r, p: p)
        if let problem = boundsProblem { throw OutOfBounds(reason: problem) }
    }

    init(unchecked log2N: UInt8, r: UInt32, p: UInt32) {
        self.log2N = log2N
        self.r = r
        self.p = p
    }

    /// Parameters outside the accepted bounds.
    public struct OutOfBounds: Error, Sendable, CustomStringConvertible, LocalizedError {
        /// Which bound was crossed.
        public let reason: String
        /// The reason.
        public var description: String { reason }
        /// The same text as ``description`` (not Foundation's generic sentence).
        public var errorDescription: String? { reason }
    }

    /// N itself.
    public var n: UInt64 { 1 << UInt64(log2N) }

    /// The memory scrypt needs with these parameters, in bytes.
    public var memoryBytes: UInt64 { 128 * UInt64(r) * n }

    /// Why these parameters are out of bounds, or `nil` if they are acceptable.
    var boundsProblem: String? {
        if log2N < 1 || log2N > Self.maxLog2N { return "N = 2^\(log2N) is outside 2^1…2^\(Self.maxLog2N)" }
        if r < 1 || r > Self.maxR { return "r = \(r) is outside 1…\(Self.maxR)" }
        if p < 1 || p > Self.maxP { return "p = \(p) is outside 1…\(Self.maxP)" }
        if memoryBytes > Self.maxMemoryBytes { return "N and r need \(memoryBytes >> 20) MiB, more than \(Self.maxMemoryBytes >> 20) MiB" }
        return nil
    }

    /// "scrypt N=2^15 r=8 p=1".
    public var description: String { "scrypt N=2^\(log2N) r=\(r) p=\(p)" }
}
