internal import COpenSSL

/// AES-256-GCM with a 96-bit nonce and a 128-bit tag.
package enum AESGCM {
    package static let keyByteCount = 32
    package static let nonceByteCount = 12
    package static let tagByteCount = 16

    /// The sealed form of a message.
    package struct SealedBox: Sendable, Equatable {
        package var nonce: [UInt8]
        package var ciphertext: [UInt8]
        package var tag: [UInt8]

        package init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` under `key`, binding `associatedData`; a fresh random nonce
    /// is drawn unless one is given.
    package static func seal(
        _ plaintext: some Sequence<UInt8>, key: [UInt8], nonce: [UInt8]? = nil, associatedData: some Sequence<UInt8> = [UInt8]()
    ) throws -> SealedBox {
        let operation = "AES-256-GCM seal"
        guard key.count == keyByteCount else { throw CryptoError.invalidInput(operation, "the key must be 32 bytes") }
        let nonce = try nonce ?? SecureRandom.bytes(nonceByteCount)
        guard nonce.count == nonceByteCount else { throw CryptoError.invalidInput(operation, "the nonce must be 12 bytes") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL(operation) }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let ciphertext: [UInt8] = try AESCipher.shared.withPointer { cipher in
            guard EVP_EncryptInit_ex2(ctx, cipher, key, nonce, nil) == 1 else { throw CryptoError.openSSL(operation) }
            try absorbAssociatedData(ctx, associatedData, operation: operation)
            let out = try withContiguousBytes(plaintext) { input -> [UInt8] in
                var out = [UInt8](repeating: 0, count: input.count)
                if input.count > 0 {
                    var written: Int32 = 0
                    guard EVP_EncryptUpdate(ctx, &out, &written, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1,
                        Int(written) == input.count
                    else { throw CryptoError.openSSL(operation) }
                }
                return out
            }
            var finalLength: Int32 = 0
            var scratch = [UInt8](repeating: 0, count: 16)
            guard EVP_EncryptFinal_ex(ctx, &scratch, &finalLength) == 1,
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), &tag) == 1
            else { throw CryptoError.openSSL(operation) }
            return out
        }
        return SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts and authenticates. Throws `.authenticationFailed` when the key, nonce,
    /// tag, ciphertext or associated data differ from what was sealed. (One message
    /// under a key; to open many, keep an ``AESGCMOpeningKey``, which this uses.)
    package static func open(_ box: SealedBox, key: [UInt8], associatedData: some Sequence<UInt8> = [UInt8]()) throws -> [UInt8] {
        try AESGCMOpeningKey(key).open(
            nonce: box.nonce[...], associatedData: ArraySlice(associatedData),
            ciphertext: box.ciphertext[...], tag: box.tag[...])
    }

    private static func absorbAssociatedData(_ ctx: OpaquePointer, _ data: some Sequence<UInt8>, operation: String) throws {
        try withContiguousBytes(data) { aad in
            guard aad.count > 0 else { return }
            var written: Int32 = 0
            let pointer = aad.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard EVP_EncryptUpdate(ctx, nil, &written, pointer, Int32(aad.count)) == 1 else { throw CryptoError.openSSL(operation) }
        }
    }
}

/// AES-256-GCM, fetched from the provider once per process.
enum AESCipher {
    static let shared: OpenSSLObject = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            fatalError("OpenSSL's default provider has no AES-256-GCM: the installation is broken")
        }
        return OpenSSLObject(taking: cipher) { EVP_CIPHER_free($0) }
    }()
}
