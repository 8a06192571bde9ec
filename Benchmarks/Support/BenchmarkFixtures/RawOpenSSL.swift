import CBenchOpenSSL

// The physical limit: what a careful C program does with OpenSSL 3 for the same
// input. Keys are parsed once, algorithms fetched once, and the keyed context is
// prepared once and copied per call (the cheapest way OpenSSL 3 offers to reuse it);
// the work per call is then the hash of the whole signing input plus the signature
// check. ECDSA signatures are converted from JOSE's r||s to DER once, outside the
// measurement, so the limit is stricter than any real verifier.
//
// These types own raw OpenSSL pointers and are used from one benchmark at a time;
// they are not Sendable.

/// A prepared public-key signature check (RSA PKCS#1 v1.5, RSA-PSS, ECDSA, Ed25519).
public final class RawSignatureVerifier {
    public enum Scheme: Sendable {
        case pkcs1(digest: String)
        case pss(digest: String)
        case ecdsa(digest: String)
        case ed25519
    }

    private let key: OpaquePointer
    private let template: OpaquePointer
    private let work: OpaquePointer

    /// Parses a SubjectPublicKeyInfo PEM and prepares the verification context.
    public init(publicKeyPEM pem: String, scheme: Scheme) {
        guard let bio = pem.withCString({ BIO_new_mem_buf($0, -1) }) else { fixtureFailure("BIO_new_mem_buf") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { fixtureFailure("PEM_read_bio_PUBKEY") }
        self.key = key
        guard let template = EVP_MD_CTX_new(), let work = EVP_MD_CTX_new() else { fixtureFailure("EVP_MD_CTX_new") }
        self.template = template
        self.work = work
        var pctx: OpaquePointer?
        let digest: String? =
            switch scheme {
            case .pkcs1(let d), .pss(let d), .ecdsa(let d): d
            case .ed25519: nil
            }
        let ok: Int32 =
            if let digest {
                digest.withCString { EVP_DigestVerifyInit_ex(template, &pctx, $0, nil, nil, key, nil) }
            } else {
                EVP_DigestVerifyInit_ex(template, &pctx, nil, nil, nil, key, nil)
            }
        guard ok == 1, let pctx else { fixtureFailure("EVP_DigestVerifyInit_ex") }
        if case .pss = scheme {
            guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
            else { fixtureFailure("PSS parameters") }
        }
    }

    deinit {
        EVP_MD_CTX_free(work)
        EVP_MD_CTX_free(template)
        EVP_PKEY_free(key)
    }

    /// Copies the prepared context and verifies `signature` (DER for ECDSA) over `input`.
    @inline(never)
    public func verify(_ input: UnsafeBufferPointer<UInt8>, signature: UnsafeBufferPointer<UInt8>) -> Bool {
        // Should a provider refuse to copy a context (OpenSSL 3.0.19 copies Ed25519 ones:
        // `make openssl-paths` says so under "facts"), re-initialising still reuses the key.
        if EVP_MD_CTX_copy_ex(work, template) != 1 {
            ERR_clear_error()
            guard EVP_DigestVerifyInit_ex(work, nil, nil, nil, nil, key, nil) == 1 else { return false }
        }
        return EVP_DigestVerify(work, signature.baseAddress, signature.count, input.baseAddress, input.count) == 1
    }
}

/// A prepared HMAC-SHA-256 key, as a careful C program keeps one: the inner and outer
/// pads hashed once (RFC 2104 §4), each message MACed from copies of the two SHA-256
/// states with OpenSSL's SHA-2 block API. That is cheaper than `EVP_MAC`, which copies
/// two provider contexts (two heap allocations) per message — about 440 against
/// 340 ns for the HS256 token on the benchmark machine.
public final class RawHMAC {
    private let inner: SHA256_CTX
    private let outer: SHA256_CTX
    public let length = Int(SHA256_DIGEST_LENGTH)

    public init(key: [UInt8]) {
        guard key.count <= Int(SHA256_CBLOCK) else { fixtureFailure("an HMAC key longer than the block") }
        let padded = key + [UInt8](repeating: 0, count: Int(SHA256_CBLOCK) - key.count)
        let ipad = padded.map { $0 ^ 0x36 }, opad = padded.map { $0 ^ 0x5C }
        var inner = SHA256_CTX(), outer = SHA256_CTX()
        guard SHA256_Init(&inner) == 1, SHA256_Update(&inner, ipad, ipad.count) == 1,
            SHA256_Init(&outer) == 1, SHA256_Update(&outer, opad, opad.count) == 1
        else { fixtureFailure("SHA256_Init") }
        self.inner = inner
        self.outer = outer
    }

    /// MACs `input` and compares with `expected` in constant time.
    @inline(never)
    public func verify(_ input: UnsafeBufferPointer<UInt8>, expected: UnsafeBufferPointer<UInt8>) -> Bool {
        guard expected.count == length else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { out in
            var ctx = inner
            guard SHA256_Update(&ctx, input.baseAddress, input.count) == 1, SHA256_Final(out.baseAddress, &ctx) == 1 else { return false }
            ctx = outer
            guard SHA256_Update(&ctx, out.baseAddress, length) == 1, SHA256_Final(out.baseAddress, &ctx) == 1 else { return false }
            return CRYPTO_memcmp(out.baseAddress, expected.baseAddress, length) == 0
        }
    }
}

/// AES-256-GCM with a 96-bit nonce, the cipher fetched once and one context reused.
public final class RawAESGCM {
    public static let tagLength = 16
    private let cipher: OpaquePointer
    private let ctx: OpaquePointer
    private let key: [UInt8]

    public init(key: [UInt8]) {
        guard key.count == 32, let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil), let ctx = EVP_CIPHER_CTX_new()
        else { fixtureFailure("EVP_CIPHER_fetch") }
        self.cipher = cipher
        self.ctx = ctx
        self.key = key
    }

    deinit {
        EVP_CIPHER_CTX_free(ctx)
        EVP_CIPHER_free(cipher)
    }

    /// Decrypts and authenticates; `nil` when the tag does not match.
    @inline(never)
    public func open(
        nonce: UnsafeBufferPointer<UInt8>, aad: UnsafeBufferPointer<UInt8>, ciphertext: UnsafeBufferPointer<UInt8>,
        tag: UnsafeBufferPointer<UInt8>
    ) -> [UInt8]? {
        var failed = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: max(ciphertext.count, 1)) { out, count in
            var length: Int32 = 0
            var finalLength: Int32 = 0
            guard EVP_DecryptInit_ex2(ctx, cipher, key, nonce.baseAddress, nil) == 1,
                EVP_DecryptUpdate(ctx, nil, &length, aad.baseAddress, Int32(aad.count)) == 1,
                EVP_DecryptUpdate(ctx, out.baseAddress, &length, ciphertext.baseAddress, Int32(ciphertext.count)) == 1,
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: tag.baseAddress)) == 1,
                EVP_DecryptFinal_ex(ctx, out.baseAddress! + Int(length), &finalLength) == 1
            else {
                failed = true
                count = 0
                return
            }
            count = Int(length + finalLength)
        }
        return failed ? nil : plaintext
    }

    /// Encrypts under a fresh random nonce; returns nonce, ciphertext || tag.
    @inline(never)
    public func seal(_ plaintext: UnsafeBufferPointer<UInt8>, aad: UnsafeBufferPointer<UInt8>) -> (nonce: [UInt8], sealed: [UInt8]) {
        var nonce = [UInt8](repeating: 0, count: 12)
        guard RAND_bytes(&nonce, 12) == 1 else { fixtureFailure("RAND_bytes") }
        let sealed = [UInt8](unsafeUninitializedCapacity: plaintext.count + Self.tagLength) { out, count in
            var length: Int32 = 0
            var finalLength: Int32 = 0
            guard EVP_EncryptInit_ex2(ctx, cipher, key, nonce, nil) == 1,
                EVP_EncryptUpdate(ctx, nil, &length, aad.baseAddress, Int32(aad.count)) == 1,
                EVP_EncryptUpdate(ctx, out.baseAddress, &length, plaintext.baseAddress, Int32(plaintext.count)) == 1,
                EVP_EncryptFinal_ex(ctx, out.baseAddress! + Int(length), &finalLength) == 1,
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength), out.baseAddress! + Int(length + finalLength)) == 1
            else { fixtureFailure("AES-GCM seal") }
            count = Int(length + finalLength) + Self.tagLength
        }
        return (nonce, sealed)
    }
}

/// JOSE's fixed-width r||s ECDSA signature as the DER `ECDSA-Sig-Value` OpenSSL verifies.
public func derECDSASignature(fromJOSE raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let half = raw.count / 2
    let body = integer(raw[..<half]) + integer(raw[half...])
    return body.count < 128 ? [0x30, UInt8(body.count)] + body : [0x30, 0x81, UInt8(body.count)] + body
}
