internal import CLatchkeyHMAC

/// An HMAC-SHA-2 key, prepared once: the key's inner and outer pads are hashed at init
/// (RFC 2104 §4), so a message costs the hash of the message and one more block.
///
/// The pads' hash states are plain structs (`CLatchkeyHMAC`): each message is MACed
/// from copies of them on the stack, with no allocation, no lock and no OpenSSL
/// provider dispatch, so any number of threads can use one key at once. OpenSSL 3's
/// `EVP_MAC` copied two provider contexts (two heap allocations) per message and
/// needed a pool of contexts behind a lock.
package struct HMACKey: Sendable {
    package let algorithm: HashAlgorithm
    /// The hashed pads: as secret as the key, wiped when freed.
    private let pads: OpenSSLObject

    /// Prepares `key` for HMAC with `algorithm`. Any key length is accepted here; the
    /// JWT layer enforces RFC 7518's minimum.
    package init(algorithm: HashAlgorithm, key: some Sequence<UInt8>) throws {
        self.algorithm = algorithm
        let bits: Int32 =
            switch algorithm {
            case .sha256: 256
            case .sha384: 384
            case .sha512: 512
            }
        let prepared = withContiguousBytes(key) { key in
            latchkey_hmac_prepare(bits, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
        }
        guard let prepared else { throw CryptoError.openSSL("initialise HMAC key") }
        pads = OpenSSLObject(taking: prepared) { latchkey_hmac_free($0) }
    }

    /// Computes the MAC of `message`.
    package func authenticationCode(for message: UnsafeRawBufferPointer) throws -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            Array(UnsafeMutableBufferPointer(rebasing: buffer[..<compute(message, into: buffer)]))
        }
    }

    package func authenticationCode(for message: some Sequence<UInt8>) throws -> [UInt8] {
        try withContiguousBytes(message) { try authenticationCode(for: $0) }
    }

    /// Checks `code` against the MAC of `message` in constant time.
    package func isValidAuthenticationCode(_ code: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) throws -> Bool {
        guard code.count == algorithm.byteCount else { return false }
        return pads.withPointer { pads in
            latchkey_hmac_verify(
                pads, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                code.baseAddress?.assumingMemoryBound(to: UInt8.self), code.count) == 1
        }
    }

    /// The MAC of `message` into `out` (64 bytes); its length.
    private func compute(_ message: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        pads.withPointer { pads in
            latchkey_hmac_compute(pads, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, out.baseAddress)
        }
    }
}
