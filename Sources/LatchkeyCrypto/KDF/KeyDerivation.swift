internal import COpenSSL

/// HKDF (RFC 5869) and scrypt (RFC 7914) through OpenSSL's KDF API.
package enum KeyDerivation {
    /// HKDF extract-and-expand.
    package static func hkdf(_ hash: HashAlgorithm, inputKey: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int) throws -> [UInt8] {
        try derive(
            "HKDF", operation: "HKDF", outputByteCount: outputByteCount,
            parameters: [
                .utf8("digest", hash.openSSLName), .octets("key", inputKey), .octets("salt", salt), .octets("info", info),
            ])
    }

    /// Limits on scrypt parameters read from untrusted input (a file header), so a
    /// crafted file cannot demand gigabytes or hours.
    package struct ScryptLimits: Sendable {
        package var maxMemoryBytes: UInt64
        package init(maxMemoryBytes: UInt64 = 256 << 20) { self.maxMemoryBytes = maxMemoryBytes }
    }

    /// scrypt with cost `n` (a power of two above 1), block size `r` and parallelism `p`.
    package static func scrypt(
        password: [UInt8], salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, outputByteCount: Int, limits: ScryptLimits = ScryptLimits()
    ) throws -> [UInt8] {
        let operation = "scrypt"
        guard n > 1, n & (n - 1) == 0 else { throw CryptoError.invalidInput(operation, "N must be a power of two greater than 1") }
        guard r >= 1, p >= 1, UInt64(r) * UInt64(p) < 1 << 30 else { throw CryptoError.invalidInput(operation, "r and p out of range") }
        let (memory, overflow) = (128 * UInt64(r)).multipliedReportingOverflow(by: n)
        guard !overflow, memory <= limits.maxMemoryBytes else {
            throw CryptoError.invalidInput(operation, "parameters need more than \(limits.maxMemoryBytes >> 20) MiB")
        }
        return try derive(
            "SCRYPT", operation: operation, outputByteCount: outputByteCount,
            parameters: [
                .octets("pass", password), .octets("salt", salt), .uint64("n", n), .uint32("r", r), .uint32("p", p),
                .uint64("maxmem_bytes", memory + (1 << 20)),
            ])
    }

    private static func derive(_ name: String, operation: String, outputByteCount: Int, parameters: [KeyParameter]) throws -> [UInt8] {
        guard outputByteCount > 0 else { throw CryptoError.invalidInput(operation, "output length must be positive") }
        guard let kdf = EVP_KDF_fetch(nil, name, nil) else { throw CryptoError.openSSL(operation) }
        defer { EVP_KDF_free(kdf) }
        guard let ctx = EVP_KDF_CTX_new(kdf) else { throw CryptoError.openSSL(operation) }
        defer { EVP_KDF_CTX_free(ctx) }
        let builder = try ParameterBuilder(operation: operation)
        for parameter in parameters { try builder.push(parameter) }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let ok = try builder.withParameters { params in EVP_KDF_derive(ctx, &out, out.count, params) }
        guard ok == 1 else { throw CryptoError.openSSL(operation) }
        return out
    }
}
