import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Key files: PEM, JWK and JWKS told apart by content, loaded through one API.
@Suite struct KeyFileTests {
    /// A fresh directory with `files` written into it.
    static func directory(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-keyfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return url
    }

    @Test(arguments: ["rsa-spki.pem", "rsa-pkcs1-public.pem", "rsa-cert.pem", "ec-p256-spki.pem", "ed25519-spki.pem"])
    func publicPEMLoadsForVerification(name: String) throws {
        let url = try Vectors.url(name)
        let file = try JWTKeyFile(contentsOf: url)
        #expect(file.format == .pem)
        #expect(file.jwkEntries == nil)
        let key = try JWTKey.load(contentsOf: url)
        #expect(key.canVerify && !key.canSign)
        #expect(try JWKSet.load(contentsOf: url).keys.count == 1)
    }

    @Test(arguments: [("rsa-pkcs8.pem", JWSAlgorithm.rs256), ("ec-p256-pkcs8.pem", .es256), ("ed25519-pkcs8.pem", .edDSA)])
    func privatePEMSignsWhatItsPublicHalfVerifies(name: String, algorithm: JWSAlgorithm) throws {
        let file = try JWTKeyFile(contentsOf: Vectors.url(name))
        let signer = try file.signingKey(algorithm: algorithm, keyID: "k1")
        #expect(signer.keyID == "k1")
        let token = try JWT.sign(["sub": "a"], key: signer)
        let keys = try file.verificationKeys(algorithm: algorithm)
        #expect(try JWT.verify(token, keys: keys, options: JWTValidationOptions(requiredClaims: [])).claims.subject == "a")
    }

    @Test func jwkAndJWKSFilesLoad() throws {
        let es = try JWTKey.generate(for: .es256, keyID: "es")
        let ed = try JWTKey.generate(for: .edDSA, keyID: "ed")
        let dir = try Self.directory([
            "private.jwk": es.jwk(includingPrivate: true).jsonText,
            "public.jwk": es.jwk().jsonText,
            "set.jwks": JWKSet(keys: [es, ed]).jsonText(includingPrivate: true),
            "public.jwks": JWKSet(keys: [es.publicKey, ed.publicKey]).jsonText(),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = try JWT.sign(["sub": "a"], key: es)
        let options = JWTValidationOptions(requiredClaims: [])

        let privateJWK = try JWTKeyFile(contentsOf: dir.appendingPathComponent("private.jwk"))
        #expect(privateJWK.format == .jwk)
        #expect(privateJWK.jwkEntries?.count == 1)
        #expect(try JWTKey.load(contentsOf: dir.appendingPathComponent("private.jwk")).canSign)
        #expect(try JWTKey.load(contentsOf: dir.appendingPathComponent("public.jwk")).keyID == "es")
        _ = try JWT.verify(token, keys: JWTKey.load(contentsOf: dir.appendingPathComponent("public.jwk")), options: options)

        let set = try JWKSet.load(contentsOf: dir.appendingPathComponent("public.jwks"))
        #expect(set.keys.count == 2)
        _ = try JWT.verify(token, keys: set, options: options)
        #expect(try JWTKeyFile(contentsOf: dir.appendingPathComponent("set.jwks")).format == .jwks)
        // One key out of a set by kid; two keys without a kid is ambiguous.
        #expect(try JWTKey.load(contentsOf: dir.appendingPathComponent("public.jwks"), keyID: "ed").keyID == "ed")
        expectJWTError(.invalidKey) { try JWTKey.load(contentsOf: dir.appendingPathComponent("public.jwks")) }
        // Signing from a set needs a kid when it holds several private keys.
        let jwks = try JWTKeyFile(contentsOf: dir.appendingPathComponent("set.jwks"))
        #expect(try jwks.signingKey(algorithm: .es256, keyID: "es").canSign)
        expectJWTError(.invalidKey) { try jwks.signingKey(algorithm: nil) }
        expectJWTError(.keyUsageNotAllowed) { try JWTKeyFile(contentsOf: dir.appendingPathComponent("public.jwk")).signingKey(algorithm: .es256) }
    }

    @Test func pinningRefusesAnotherAlgorithm() throws {
        let es = try JWTKey.generate(for: .es256, keyID: "es")
        let file = try JWTKeyFile(bytes: Array(es.jwk(includingPrivate: true).jsonText.utf8))
        let error = expectJWTError(.invalidKey) { try file.verificationKeys(algorithm: .es384) }
        #expect(error?.message.contains("ES256") == true)
    }

    @Test(arguments: ["", "not a key at all", "[1,2]", #"{"a":1}"#, #"{"keys":{}}"#, #"{"keys":[{"kty":"OKP","crv":"X25519","x":"AAAA"}]}"#])
    func whatIsNotAKeyFileSaysSoWithoutShowingIt(text: String) throws {
        let error = expectJWTError(.invalidKey) {
            try JWTKeyFile(bytes: Array(text.utf8)).verificationKeys()
        }
        if text.count > 5 { #expect(error?.message.contains(text) == false) }
    }

    @Test func anUnreadableFileKeepsTheSystemError() throws {
        let error = expectJWTError(.invalidKey) { try JWTKeyFile(contentsOf: URL(fileURLWithPath: "/nonexistent/key.pem")) }
        #expect(error?.underlying != nil)
        #expect(error?.message == "invalid key: cannot read key file /nonexistent/key.pem: No such file or directory")
    }

    @Test func aDirectoryOrAnOversizedFileIsRefusedWithoutReadingItAll() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-keyfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notAFile = expectJWTError(.invalidKey) { try JWTKeyFile(contentsOf: directory) }
        #expect(notAFile?.message == "invalid key: cannot read key file \(directory.path): Is a directory")
        // Past the limit by a byte: refused by size, not by parsing (only limit + 1 bytes are read).
        let large = directory.appendingPathComponent("large.jwk")
        try Data(repeating: 0x20, count: JWTKeyFile.maximumSize + 1).write(to: large)
        let oversized = expectJWTError(.invalidKey) { try JWTKeyFile(contentsOf: large) }
        #expect(oversized?.message.hasPrefix("invalid key: the key file is larger than") == true, "\(String(describing: oversized?.message))")
        // /dev/zero never ends: the read stops at the limit.
        let endless = expectJWTError(.invalidKey) { try JWTKeyFile(contentsOf: URL(fileURLWithPath: "/dev/zero")) }
        #expect(endless?.message.hasPrefix("invalid key: the key file is larger than") == true)
    }
}
