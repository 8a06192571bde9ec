internal import COpenSSL

// OpenSSL's EVP_PKEY_PUBLIC_KEY and EVP_PKEY_KEYPAIR are macro expressions Swift cannot
// import: (ALL_PARAMETERS 0x84 | PUBLIC_KEY 0x02) and (| PRIVATE_KEY 0x01).
let selectPublicKey: Int32 = 0x86
let selectKeyPair: Int32 = 0x87

/// One parameter for `EVP_PKEY_fromdata`.
enum KeyParameter {
    case bigNumber(String, [UInt8])
    case octets(String, [UInt8])
    case utf8(String, String)
    case uint64(String, UInt64)
    case uint32(String, UInt32)
}

/// Collects OSSL_PARAMs. OpenSSL's builder only *references* pushed values until
/// `OSSL_PARAM_BLD_to_param` copies them, and the finished array still points at the
/// parameter *names*; so this owns copies of both for as long as the array is in use.
final class ParameterBuilder {
    private let builder: OpaquePointer
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var bigNumbers: [OpaquePointer] = []
    private let operation: String

    init(operation: String) throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL(operation) }
        self.builder = builder
        self.operation = operation
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        for buffer in buffers {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        bigNumbers.forEach { BN_clear_free($0) }
    }

    private func own(_ bytes: some Collection<UInt8>) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.copyBytes(from: bytes)
        buffers.append(buffer)
        return buffer
    }

    private func name(_ name: String) -> UnsafePointer<CChar> {
        UnsafePointer(own(Array(name.utf8)).baseAddress!.assumingMemoryBound(to: CChar.self))
    }

    func push(_ parameter: KeyParameter) throws {
        let ok: Int32
        switch parameter {
        case .bigNumber(let name, let bytes):
            guard !bytes.isEmpty, let bn = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
                throw CryptoError.invalidKey(operation, "empty or invalid integer '\(name)'")
            }
            bigNumbers.append(bn)
            ok = OSSL_PARAM_BLD_push_BN(builder, self.name(name), bn)
        case .octets(let name, let bytes):
            let buffer = own(bytes)
            ok = OSSL_PARAM_BLD_push_octet_string(builder, self.name(name), buffer.baseAddress, bytes.count)
        case .utf8(let name, let value):
            let buffer = own(Array(value.utf8))
            ok = OSSL_PARAM_BLD_push_utf8_string(builder, self.name(name), buffer.baseAddress?.assumingMemoryBound(to: CChar.self), 0)
        case .uint64(let name, let value):
            ok = OSSL_PARAM_BLD_push_uint64(builder, self.name(name), value)
        case .uint32(let name, let value):
            ok = OSSL_PARAM_BLD_push_uint32(builder, self.name(name), value)
        }
        guard ok == 1 else { throw CryptoError.openSSL(operation) }
    }

    /// Lends the finished parameter array to `body`.
    func withParameters<R>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> R) throws -> R {
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.openSSL(operation) }
        defer { OSSL_PARAM_free(params) }
        return try withExtendedLifetime(self) { try body(params) }
    }
}

/// Builds a key from its components through OpenSSL's provider API.
func buildKey(algorithm: String, selection: Int32, parameters: [KeyParameter], operation: String) throws -> OpaquePointer {
    let builder = try ParameterBuilder(operation: operation)
    for parameter in parameters { try builder.push(parameter) }
    guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else { throw CryptoError.openSSL(operation) }
    defer { EVP_PKEY_CTX_free(ctx) }
    var pkey: OpaquePointer?
    let ok = try builder.withParameters { params in
        EVP_PKEY_fromdata_init(ctx) == 1 && EVP_PKEY_fromdata(ctx, &pkey, selection, params) == 1
    }
    guard ok, let pkey else { throw CryptoError.openSSL(operation, code: .invalidKey) }
    return pkey
}

/// Checks that a public key is usable: an EC point on its curve, an RSA key that is sane.
func checkPublicKey(_ pkey: OpaquePointer, operation: String) throws {
    guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw CryptoError.openSSL(operation) }
    defer { EVP_PKEY_CTX_free(ctx) }
    guard EVP_PKEY_public_check(ctx) == 1 else { throw CryptoError.openSSL(operation, code: .invalidKey) }
}

func bigNumberParameter(_ pkey: OpaquePointer, _ name: String, padTo width: Int? = nil) -> [UInt8]? {
    var bn: OpaquePointer?
    guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { return nil }
    defer { BN_clear_free(bn) }
    let natural = (Int(BN_num_bits(bn)) + 7) / 8
    let count = max(width ?? natural, natural)
    var out = [UInt8](repeating: 0, count: count)
    guard BN_bn2binpad(bn, &out, Int32(count)) == Int32(count) else { return nil }
    return out
}

func octetParameter(_ pkey: OpaquePointer, _ name: String) -> [UInt8]? {
    var length = 0
    guard EVP_PKEY_get_octet_string_param(pkey, name, nil, 0, &length) == 1 else { return nil }
    var out = [UInt8](repeating: 0, count: length)
    guard EVP_PKEY_get_octet_string_param(pkey, name, &out, length, &length) == 1 else { return nil }
    return Array(out[..<length])
}

/// Runs an `i2d_*`-style or PEM-writing function into a memory BIO and returns its bytes.
func withMemoryBIO(operation: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
    guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL(operation) }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw CryptoError.openSSL(operation) }
    var data: UnsafeMutablePointer<CChar>?
    // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO = 3).
    let length = BIO_ctrl(bio, 3, 0, &data)
    guard length >= 0, let data else { return [] }
    return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
}
