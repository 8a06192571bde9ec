internal import COpenSSL
internal import Synchronization

/// An AES-256-GCM key prepared once for opening many messages under it.
///
/// Opening a message under a fresh context expands the key each time; for a 2 KB record
/// that setup cost more than the decryption. This key keeps one context with the key
/// schedule in place and sets only the nonce per message, and it reads the message
/// where it lies: the plaintext is the only allocation. (``AESGCM/open(_:key:associatedData:)``
/// is this with a key used once.)
///
/// Thread-safe. The cached context serves one call at a time; a call that finds it
/// busy opens with a fresh context of its own rather than waiting.
package final class AESGCMOpeningKey: Sendable {
    private let key: [UInt8]
    /// `nil` after an unexpected OpenSSL failure left its state in doubt; rebuilt on
    /// the next call.
    private let cached: Mutex<OpenSSLObject?>

    /// Prepares `key` (32 bytes).
    package init(_ key: [UInt8]) throws {
        guard key.count == AESGCM.keyByteCount else { throw CryptoError.invalidInput(Self.operation, "the key must be 32 bytes") }
        self.key = key
        cached = Mutex(try Self.context(key))
    }

    private static let operation = "AES-256-GCM open"

    /// Decrypts and authenticates `ciphertext`; each argument may be a slice of one
    /// larger buffer (a file's bytes) and none is copied.
    ///
    /// - Throws: `.authenticationFailed` when the nonce, tag, ciphertext or associated
    ///   data differ from what was sealed under this key.
    package func open(
        nonce: ArraySlice<UInt8>, associatedData: ArraySlice<UInt8>, ciphertext: ArraySlice<UInt8>,
        tag: ArraySlice<UInt8>
    ) throws(CryptoError) -> [UInt8] {
        guard nonce.count == AESGCM.nonceByteCount, tag.count == AESGCM.tagByteCount else {
            throw CryptoError(.authenticationFailed, operation: Self.operation, reason: "malformed nonce or tag")
        }
        let attempt = cached.withLockIfAvailable { (context: inout OpenSSLObject?) -> Result<[UInt8], CryptoError> in
            let result = Result { () throws(CryptoError) -> [UInt8] in
                if context == nil { context = try Self.context(key) }
                return try Self.open(context!, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext, tag: tag)
            }
            if case .failure(let error) = result, error.code != .authenticationFailed { context = nil }
            return result
        }
        if let attempt { return try attempt.get() }
        return try Self.open(Self.context(key), nonce: nonce, associatedData: associatedData, ciphertext: ciphertext, tag: tag)
    }

    /// A decryption context holding the expanded key and no nonce yet.
    private static func context(_ key: [UInt8]) throws(CryptoError) -> OpenSSLObject {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL(operation) }
        let context = OpenSSLObject(taking: ctx) { EVP_CIPHER_CTX_free($0) }
        let ok = AESCipher.shared.withPointer { cipher in EVP_DecryptInit_ex2(ctx, cipher, key, nil, nil) == 1 }
        guard ok else { throw CryptoError.openSSL(operation) }
        return context
    }

    private static func open(
        _ context: OpenSSLObject, nonce: ArraySlice<UInt8>, associatedData: ArraySlice<UInt8>,
        ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>
    ) throws(CryptoError) -> [UInt8] {
        var failure: CryptoError?
        let plaintext = context.withPointer { ctx in
            nonce.withUnsafeBufferPointer { nonce in
                associatedData.withUnsafeBufferPointer { aad in
                    ciphertext.withUnsafeBufferPointer { input in
                        tag.withUnsafeBufferPointer { tag in
                            // GCM writes exactly as many bytes as it reads; one spare byte
                            // keeps the buffer non-empty for an empty message.
                            [UInt8](unsafeUninitializedCapacity: input.count + 1) { out, count in
                                count = 0
                                var written: Int32 = 0
                                // The key is in place: only the nonce is set, which also
                                // resets the GCM state left by the previous message.
                                guard EVP_DecryptInit_ex2(ctx, nil, nil, nonce.baseAddress, nil) == 1,
                                    aad.isEmpty || EVP_DecryptUpdate(ctx, nil, &written, aad.baseAddress, Int32(aad.count)) == 1,
                                    input.isEmpty || EVP_DecryptUpdate(ctx, out.baseAddress, &written, input.baseAddress, Int32(input.count)) == 1,
                                    input.isEmpty || Int(written) == input.count,
                                    EVP_CIPHER_CTX_ctrl(
                                        ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: tag.baseAddress)) == 1
                                else {
                                    failure = CryptoError.openSSL(operation)
                                    return
                                }
                                var finalLength: Int32 = 0
                                guard EVP_DecryptFinal_ex(ctx, out.baseAddress! + input.count, &finalLength) == 1 else {
                                    ERR_clear_error()
                                    failure = CryptoError(
                                        .authenticationFailed, operation: operation,
                                        reason: "authentication failed (wrong key, or the data was altered)")
                                    // Unauthenticated plaintext never leaves this function.
                                    out.baseAddress!.initialize(repeating: 0, count: input.count)
                                    return
                                }
                                count = input.count
                            }
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        return plaintext
    }
}
