internal import COpenSSL
import Synchronization

/// An HMAC-SHA-2 key, prepared once: the keyed context is built at init, so no per-call
/// key schedule or algorithm fetch happens.
///
/// Each message is MACed in a keyed context of its own, taken from a small pool and
/// re-initialised in place (`EVP_MAC_init` without a key keeps the key's inner and
/// outer pads): half the cost of duplicating the template for every message. A context
/// is used by one call at a time; the pool's lock hands it from one call to the next.
package struct HMACKey: Sendable {
    package let algorithm: HashAlgorithm
    private let template: OpenSSLObject
    private let pool = ContextPool()

    /// Idle keyed contexts, at most `capacity` of them (one per concurrent caller in
    /// practice).
    private final class ContextPool: Sendable {
        static let capacity = 8
        let idle = Mutex<[OpenSSLObject]>([])
    }

    /// Prepares `key` for HMAC with `algorithm`. Any key length is accepted here; the
    /// JWT layer enforces RFC 7518's minimum.
    package init(algorithm: HashAlgorithm, key: some Sequence<UInt8>) throws {
        self.algorithm = algorithm
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw CryptoError.openSSL("fetch HMAC") }
        defer { EVP_MAC_free(mac) }
        guard let ctx = EVP_MAC_CTX_new(mac) else { throw CryptoError.openSSL("create HMAC context") }
        let owned = OpenSSLObject.macContext(ctx)
        let builder = try ParameterBuilder(operation: "initialise HMAC key")
        try builder.push(.utf8("digest", algorithm.openSSLName))
        let keyBytes = Array(key)
        let ok = try builder.withParameters { params in
            keyBytes.withUnsafeBufferPointer { keyBuffer in
                // An empty key must still be a valid pointer for OpenSSL.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                    EVP_MAC_init(ctx, keyBuffer.baseAddress ?? UnsafePointer(empty.baseAddress!), keyBuffer.count, params)
                }
            }
        }
        guard ok == 1 else { throw CryptoError.openSSL("initialise HMAC key") }
        template = owned
    }

    /// Computes the MAC of `message`.
    package func authenticationCode(for message: UnsafeRawBufferPointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm.byteCount)
        let written = try out.withUnsafeMutableBufferPointer { try compute(message, into: $0) }
        precondition(written == algorithm.byteCount)
        return out
    }

    package func authenticationCode(for message: some Sequence<UInt8>) throws -> [UInt8] {
        try withContiguousBytes(message) { try authenticationCode(for: $0) }
    }

    /// Checks `code` against the MAC of `message` in constant time.
    package func isValidAuthenticationCode(_ code: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) throws -> Bool {
        guard code.count == algorithm.byteCount else { return false }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            let written = try compute(message, into: buffer)
            return constantTimeEquals(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<written])), code)
        }
    }

    private func compute(_ message: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let context = try pool.idle.withLock { $0.popLast() } ?? freshContext()
        let length = try context.withPointer { ctx in
            var length = 0
            guard EVP_MAC_init(ctx, nil, 0, nil) == 1,
                  EVP_MAC_update(ctx, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1,
                  EVP_MAC_final(ctx, out.baseAddress, &length, out.count) == 1
            else { throw CryptoError.openSSL("compute HMAC") }
            return length
        }
        // Back to the pool only after a clean run: a context that failed is dropped.
        pool.idle.withLock { idle in
            if idle.count < ContextPool.capacity { idle.append(context) }
        }
        return length
    }

    /// A new keyed context, copied from the template.
    private func freshContext() throws -> OpenSSLObject {
        try template.withPointer { templateContext in
            guard let ctx = EVP_MAC_CTX_dup(templateContext) else { throw CryptoError.openSSL("copy HMAC context") }
            return OpenSSLObject.macContext(ctx)
        }
    }
}
