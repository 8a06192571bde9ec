internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
package enum SecureRandom {
    /// Returns `count` random bytes.
    package static func bytes(_ count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBytes { try fill($0) }
        return out
    }

    /// Fills `buffer` with random bytes.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw CryptoError.openSSL("random bytes")
        }
    }
}
