internal import COpenSSL

/// An HMAC-SHA-2 key, prepared once: the keyed context is built at init and copied
/// for each message, so no per-call key schedule or algorithm fetch happens.
package struct HMACKey: Sendable {
    package let algorithm: HashAlgorithm
    private let template: OpenSSLObject

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
        try template.withPointer { templateContext in
            guard let ctx = EVP_MAC_CTX_dup(templateContext) else { throw CryptoError.openSSL("copy HMAC context") }
            defer { EVP_MAC_CTX_free(ctx) }
            var length = 0
            guard EVP_MAC_update(ctx, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1,
                  EVP_MAC_final(ctx, out.baseAddress, &length, out.count) == 1
            else { throw CryptoError.openSSL("compute HMAC") }
            return length
        }
    }
}
