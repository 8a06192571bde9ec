import Testing

@testable import LatchkeyCrypto

private func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = Array(s.utf8).makeIterator()
    while let a = chars.next(), let b = chars.next() { out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16)!) }
    return out
}

@Suite struct PrimitiveTests {
    // RFC 4231 test case 2.
    @Test func hmacRFC4231() throws {
        let key = try HMACKey(algorithm: .sha256, key: Array("Jefe".utf8))
        let mac = try key.authenticationCode(for: Array("what do ya want for nothing?".utf8))
        #expect(mac == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        let key512 = try HMACKey(algorithm: .sha512, key: Array("Jefe".utf8))
        #expect(
            try key512.authenticationCode(for: Array("what do ya want for nothing?".utf8))
                == hex(
                    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
                ))
        let message = Array("what do ya want for nothing?".utf8)
        let valid = try mac.withUnsafeBytes { code in
            try message.withUnsafeBytes { msg in try key.isValidAuthenticationCode(code, for: msg) }
        }
        #expect(valid)
    }

    @Test func sha2() {
        #expect(HashAlgorithm.sha256.hash(Array("abc".utf8)) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(HashAlgorithm.sha384.hash([UInt8]()).count == 48)
    }

    @Test func aesGCMRoundTripAndTamper() throws {
        let key = try SecureRandom.bytes(32)
        let box = try AESGCM.seal(Array("secret".utf8), key: key, associatedData: Array("aad".utf8))
        #expect(try AESGCM.open(box, key: key, associatedData: Array("aad".utf8)) == Array("secret".utf8))
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, associatedData: Array("aaD".utf8)) }
        var tampered = box
        tampered.ciphertext[0] ^= 1
        #expect(throws: CryptoError.self) { try AESGCM.open(tampered, key: key, associatedData: Array("aad".utf8)) }
        let empty = try AESGCM.seal([UInt8](), key: key)
        #expect(try AESGCM.open(empty, key: key).isEmpty)
        #expect(try AESGCM.seal([UInt8](), key: key).nonce != empty.nonce)
    }

    // The prepared key reads slices of one buffer, reuses its context across messages
    // (a failure must not poison the next one) and agrees with the one-shot open.
    @Test func aesGCMOpeningKey() throws {
        let key = try SecureRandom.bytes(32)
        let opening = try AESGCMOpeningKey(key)
        for length in [0, 1, 15, 16, 17, 2048] {
            let plaintext = try SecureRandom.bytes(length)
            let box = try AESGCM.seal(plaintext, key: key, associatedData: Array("header".utf8))
            let file = Array("header".utf8) + box.nonce + box.ciphertext + box.tag
            let aad = file[0..<6], nonce = file[6..<18], ciphertext = file[18..<18 + length], tag = file[(18 + length)...]
            #expect(try opening.open(nonce: nonce, associatedData: aad, ciphertext: ciphertext, tag: tag) == plaintext)
            #expect(try AESGCM.open(box, key: key, associatedData: Array("header".utf8)) == plaintext)
            var tampered = file
            tampered[length > 0 ? 18 : 0] ^= 1
            #expect(throws: CryptoError.self) {
                try opening.open(
                    nonce: tampered[6..<18], associatedData: tampered[0..<6], ciphertext: tampered[18..<18 + length], tag: tampered[(18 + length)...])
            }
            #expect(throws: CryptoError.self) { try opening.open(nonce: nonce, associatedData: aad, ciphertext: ciphertext, tag: file[0..<16]) }
            #expect(throws: CryptoError.self) {
                try AESGCMOpeningKey(try SecureRandom.bytes(32)).open(nonce: nonce, associatedData: aad, ciphertext: ciphertext, tag: tag)
            }
            #expect(throws: CryptoError.self) { try opening.open(nonce: nonce[6..<17], associatedData: aad, ciphertext: ciphertext, tag: tag) }
            // After the failures, the same context still opens the original.
            #expect(try opening.open(nonce: nonce, associatedData: aad, ciphertext: ciphertext, tag: tag) == plaintext)
        }
        #expect(throws: CryptoError.self) { try AESGCMOpeningKey([1, 2, 3]) }
    }

    @Test func aesGCMOpeningKeyConcurrently() async throws {
        let key = try SecureRandom.bytes(32)
        let opening = try AESGCMOpeningKey(key)
        let plaintext = try SecureRandom.bytes(2048)
        let box = try AESGCM.seal(plaintext, key: key)
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        let out = try opening.open(nonce: box.nonce[...], associatedData: [], ciphertext: box.ciphertext[...], tag: box.tag[...])
                        guard out == plaintext else { return false }
                    }
                    return true
                }
            }
            return try await group.reduce(true) { $0 && $1 }
        }
        #expect(opened)
    }

    // NIST GCM test vector (gcmEncryptExtIV256, Count 0 with 128-bit plaintext).
    @Test func aesGCMKnownAnswer() throws {
        let key = hex("0000000000000000000000000000000000000000000000000000000000000000")
        let box = try AESGCM.seal(hex("00000000000000000000000000000000"), key: key, nonce: hex("000000000000000000000000"))
        #expect(box.ciphertext == hex("cea7403d4d606b6e074ec5d3baf39d18"))
        #expect(box.tag == hex("d0d1c8a799996bf0265b98b5d48ab919"))
    }

    // RFC 5869 A.1 and RFC 7914 §12 (N=16, r=1, p=1, empty password and salt).
    @Test func kdfs() throws {
        let okm = try KeyDerivation.hkdf(
            .sha256, inputKey: hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: hex("000102030405060708090a0b0c"),
            info: hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(okm == hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
        let scrypt = try KeyDerivation.scrypt(password: [], salt: [], n: 16, r: 1, p: 1, outputByteCount: 64)
        #expect(
            scrypt
                == hex(
                    "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
                ))
        #expect(throws: CryptoError.self) { try KeyDerivation.scrypt(password: [], salt: [], n: 1 << 30, r: 8, p: 1, outputByteCount: 32) }
        #expect(throws: CryptoError.self) { try KeyDerivation.scrypt(password: [], salt: [], n: 3, r: 1, p: 1, outputByteCount: 32) }
    }

    @Test func base64Strictness() {
        #expect(Base64.decodeURL("AQAB") == [1, 0, 1])
        #expect(Base64.decodeURL("AQA") == [1, 0])
        #expect(Base64.decodeURL("AQ") == [1])
        #expect(Base64.decodeURL("AQ==") == nil)
        #expect(Base64.decodeURL("A") == nil)
        #expect(Base64.decodeURL("AR") == nil)  // non-zero trailing bits
        #expect(Base64.decodeURL("A+B/") == nil)
        #expect(Base64.decodeURL("A B") == nil)
        #expect(Base64.decodeStandard("AQAB") == [1, 0, 1])
        #expect(Base64.decodeStandard("AQ==") == [1])
        #expect(Base64.encode([1, 0, 1, 2]) == "AQABAg")
        #expect(Base64.encode([1, 0, 1, 2], alphabet: .standard) == "AQABAg==")
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.decodeURL(Base64.encode(bytes)) == bytes)
            #expect(Base64.decodeStandard(Base64.encode(bytes, alphabet: .standard)) == bytes)
        }
    }
}
