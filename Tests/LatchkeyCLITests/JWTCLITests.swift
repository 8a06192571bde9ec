import Foundation
import LatchkeyJWT
import Testing

/// The JWT commands of `latchkey`, end to end: each test runs the built executable
/// with real files, pipes and (for colour) a pseudo-terminal.
@Suite struct JWTCLITests {
    private let cli = JWTCLIRunner()
    private static let secret = "correct horse battery staple, long enough for HS256"

    // MARK: Round trips

    @Test(arguments: ["HS256", "RS256", "PS256", "ES256", "ES384", "EdDSA", "Ed25519"])
    func keygenSignVerifyRoundTrip(alg: String) throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("key")
        let hmac = alg.hasPrefix("HS")
        let keygen = try cli.run(["keygen", "--alg", alg, "--kid", "k1", "--out", keyPath])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        #expect(try JWTCLIRunner.mode(keyPath) == 0o600)
        let publicPath = hmac ? keyPath : keyPath + ".pub"
        if !hmac {
            #expect(try JWTCLIRunner.mode(publicPath) == 0o644)
            #expect(try String(contentsOfFile: publicPath, encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----"))
        }

        let signed = try cli.run([
            "sign", "--alg", alg, "--key", keyPath, "--kid", "k1", "--sub", "user-1", "--iss", "https://issuer.test/",
            "--aud", "app", "--exp", "5m", "--claim", #"roles=["admin"]"#, "--claim", "plan=pro",
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".", omittingEmptySubsequences: false).count == 3)

        let verified = try cli.run(["verify", "--key", publicPath, "--iss", "https://issuer.test/", "--aud", "app", "--json", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        let result = try JWTCLIRunner.jsonObject(verified.stdout)
        #expect(Set(result.keys) == ["valid", "header", "payload"])
        #expect(result["valid"] as? Bool == true)
        let header = try #require(result["header"] as? [String: Any])
        #expect(header["alg"] as? String == alg)
        #expect(header["kid"] as? String == "k1")
        let payload = try #require(result["payload"] as? [String: Any])
        #expect(payload["sub"] as? String == "user-1")
        #expect(payload["roles"] as? [String] == ["admin"])
        #expect(payload["plan"] as? String == "pro")

        let plain = try cli.run(["verify", "--key", publicPath, token])
        #expect(plain.status == 0)
        #expect(plain.stdout.hasPrefix("valid (\(alg), kid k1, sub user-1, expires in "), "\(plain.stdout)")
        #expect(plain.stderr.isEmpty)

        // A flipped character in the payload, or in the signature, is refused.
        for segment in [1, 2] {
            let tampered = JWTCLIRunner.flipCharacter(in: token, segment: segment)
            let refused = try cli.run(["verify", "--key", publicPath, tampered])
            #expect(refused.status == 1, "segment \(segment): \(refused.stdout)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.hasPrefix("error: token refused: "))
        }
    }

    @Test func hmacWithSecretAndSecretFile() throws {
        let dir = try JWTCLITemporaryDirectory()
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "1h"]).stdout
        #expect(try cli.run(["verify", "--secret", Self.secret, token]).status == 0)
        let secretFile = dir.path("secret")
        try Data(Self.secret.utf8).write(to: URL(fileURLWithPath: secretFile))
        #expect(try cli.run(["verify", "--secret-file", secretFile, token]).status == 0)
        // The file's bytes exactly: a trailing newline is part of the secret.
        try Data((Self.secret + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        #expect(try cli.run(["verify", "--secret-file", secretFile, token]).status == 1)
        let fromFile = try cli.run(["sign", "--alg", "HS384", "--secret-file", secretFile]).stdout
        #expect(try cli.run(["verify", "--secret", Self.secret + "\n", fromFile]).status == 0)

        let wrong = try cli.run(["verify", "--secret", "another secret, also long enough for HS256", token])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("signature verification failed"))
        // --alg pins the algorithm: an HS256 token is refused when HS384 is asked for.
        #expect(try cli.run(["verify", "--secret", Self.secret, "--alg", "HS384", token]).status == 1)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--alg", "hs256", token]).status == 0)
    }

    @Test func rsaPublicKeyAsHMACSecretIsRefused() throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("rsa")
        #expect(try cli.run(["keygen", "--alg", "RS256", "--out", keyPath]).status == 0)
        // The classic confusion: sign HS256 with the public key's PEM text as the secret.
        let forged = try cli.run(["sign", "--alg", "HS256", "--secret-file", keyPath + ".pub", "--exp", "1h"])
        #expect(forged.status == 0, "\(forged.stderr)")
        let publicPEM = try String(contentsOfFile: keyPath + ".pub", encoding: .utf8)
        #expect(try cli.run(["verify", "--secret=\(publicPEM)", forged.stdout]).status == 0)
        let refused = try cli.run(["verify", "--key", keyPath + ".pub", forged.stdout])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("does not match the key"))
    }

    // MARK: Input

    @Test func tokenFromStandardInputArgumentAndBearerPrefix() throws {
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "1h"]).stdout
        let bare = token.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cli.run(["verify", "--secret", Self.secret, "-"], stdin: token).status == 0)
        #expect(try cli.run(["verify", "--secret", Self.secret], stdin: token).status == 0)
        #expect(try cli.run(["verify", "--secret", Self.secret], stdin: "Bearer " + token).status == 0)
        #expect(try cli.run(["verify", "--secret", Self.secret, "  bearer \(bare)\n"]).status == 0)
        #expect(try cli.run(["verify", "--secret", Self.secret, "\n\t\(bare)  \n"]).status == 0)
        #expect(try cli.run(["inspect", "-"], stdin: "Bearer " + token).status == 0)
        #expect(try cli.run(["inspect"], stdin: token).status == 0)
        let empty = try cli.run(["inspect"], stdin: "  \n")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no token"))
        #expect(try cli.run(["verify", "--secret", Self.secret], stdin: "Bearer").status == 1)
    }

    // MARK: Exit codes

    @Test func verifyExitCodes() throws {
        let dir = try JWTCLITemporaryDirectory()
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "1h"]).stdout
        // 64: usage.
        #expect(try cli.run(["verify", "--key", "/nonexistent", "--secret", Self.secret, token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--secret-file", "/nonexistent", token]).status == 64)
        #expect(try cli.run(["verify", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--alg", "RS256", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--alg", "none", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--alg", "XX256", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--leeway", "-5", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--leeway=-5", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--leeway", "soon", token]).status == 64)
        #expect(try cli.run(["verify", "--secret", Self.secret, "--jws", "--aud", "x", token]).status == 64)
        // 2: the key cannot be read or used.
        let missing = try cli.run(["verify", "--key", dir.path("missing.pem"), token])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read key file \(dir.path("missing.pem")): No such file or directory\n")
        #expect(try cli.run(["verify", "--secret-file", dir.path("missing"), token]).status == 2)
        #expect(try cli.run(["verify", "--key", dir.url.path, token]).status == 2)
        let garbage = dir.path("garbage.pem")
        try "not a key at all".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(try cli.run(["verify", "--key", garbage, token]).status == 2)
        let badPEM = dir.path("bad.pem")
        try "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".write(toFile: badPEM, atomically: true, encoding: .utf8)
        #expect(try cli.run(["verify", "--key", badPEM, token]).status == 2)
        let emptySet = dir.path("empty.json")
        try #"{"keys":[{"kty":"OKP","crv":"X25519","x":"AAAA"}]}"#.write(toFile: emptySet, atomically: true, encoding: .utf8)
        let noUsable = try cli.run(["verify", "--key", emptySet, token])
        #expect(noUsable.status == 2)
        #expect(noUsable.stderr.contains("no usable key"))
        // A short secret is a key problem, and is never echoed.
        let short = try cli.run(["verify", "--secret", "tiny-secret-value", token])
        #expect(short.status == 2)
        #expect(!short.stderr.contains("tiny-secret-value"))
        // 1: invalid or malformed token.
        for malformed in ["not.a-token", "a.b", "eyJhbGciOiJIUzI1NiJ9.e30.!!!", token + "x", "Bearer "] {
            let run = try cli.run(["verify", "--secret", Self.secret, malformed])
            #expect(run.status == 1, "\(malformed)")
            #expect(run.stderr.hasPrefix("error: "), "\(malformed)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line: \(run.stderr)")
        }
    }

    @Test func verifyJSONOnFailure() throws {
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--aud", "app", "--exp", "1h"]).stdout
        let cases: [([String], String)] = [
            (["--secret", "another secret, also long enough for HS256"], "signatureInvalid"),
            (["--secret", Self.secret, "--aud", "other"], "wrongAudience"),
            (["--secret", Self.secret, "--iss", "https://expected/"], "missingClaim"),
        ]
        for (options, code) in cases {
            let run = try cli.run(["verify", "--json"] + options + [token])
            #expect(run.status == 1)
            #expect(run.stdout.filter { $0 == "\n" }.count == 1)
            let object = try JWTCLIRunner.jsonObject(run.stdout)
            #expect(Set(object.keys) == ["valid", "error", "message"])
            #expect(object["valid"] as? Bool == false)
            #expect(object["error"] as? String == code)
            #expect((object["message"] as? String)?.isEmpty == false)
        }
        let malformed = try JWTCLIRunner.jsonObject(try cli.run(["verify", "--json", "--secret", Self.secret, "a.b.c.d"]).stdout)
        #expect(malformed["error"] as? String == "malformed")
    }

    // MARK: Claims

    @Test func expiredAndNotYetValid() throws {
        let now = Int(Date().timeIntervalSince1970)
        let expired = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--claim", "exp=\(now - 3600)"]).stdout
        let refused = try cli.run(["verify", "--secret", Self.secret, expired])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("expired"))
        let json = try JWTCLIRunner.jsonObject(try cli.run(["verify", "--json", "--secret", Self.secret, expired]).stdout)
        #expect(json["error"] as? String == "expired")
        #expect(try cli.run(["verify", "--secret", Self.secret, "--leeway", "7200", expired]).status == 0)

        let inspect = try cli.run(["inspect", expired])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("(expired 1h ago)"))
        let warnings = try #require(try JWTCLIRunner.jsonObject(try cli.run(["inspect", "--json", expired]).stdout)["warnings"] as? [String])
        #expect(warnings.contains { $0.hasPrefix("expired 1h ago") })

        let future = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "2h", "--claim", "nbf=\(now + 3600)"]).stdout
        let early = try cli.run(["verify", "--secret", Self.secret, future])
        #expect(early.status == 1)
        #expect(early.stderr.contains("not valid before"))
        let futureWarnings = try #require(try JWTCLIRunner.jsonObject(try cli.run(["inspect", "--json", future]).stdout)["warnings"] as? [String])
        #expect(futureWarnings.contains { $0.hasPrefix("not valid yet") })
    }

    @Test func audienceAndIssuer() throws {
        let token = try cli.run([
            "sign", "--alg", "HS256", "--secret", Self.secret, "--iss", "https://issuer.test/", "--exp", "1h",
            "--claim", #"aud=["web","mobile"]"#,
        ]).stdout
        #expect(try cli.run(["verify", "--secret", Self.secret, "--aud", "mobile", "--iss", "https://issuer.test/", token]).status == 0)
        let audience = try cli.run(["verify", "--secret", Self.secret, "--aud", "desktop", token])
        #expect(audience.status == 1)
        #expect(audience.stderr.contains("wrong audience"))
        let issuer = try cli.run(["verify", "--secret", Self.secret, "--iss", "https://evil.test/", token])
        #expect(issuer.status == 1)
        #expect(issuer.stderr.contains("wrong issuer"))
    }

    @Test func signClaimValues() throws {
        let before = Int(Date().timeIntervalSince1970)
        let signed = try cli.run([
            "sign", "--alg", "HS256", "--secret", Self.secret, "--kid", "hk", "--exp", "1h30m",
            "--claim", "n=42", "--claim", "b=true", "--claim", #"o={"k":[1,2]}"#, "--claim", "s=hello world",
            "--claim", "z=007", "--claim", "eq=a=b", "--claim", "empty=", "--sub", "overridden", "--claim", "sub=final",
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let inspect = try JWTCLIRunner.jsonObject(try cli.run(["inspect", "--json", signed.stdout]).stdout)
        let header = try #require(inspect["header"] as? [String: Any])
        #expect(header["kid"] as? String == "hk")
        #expect(header["typ"] as? String == "JWT")
        let claims = try #require(inspect["payload"] as? [String: Any])
        #expect(claims["n"] as? Int == 42)
        #expect(claims["b"] as? Bool == true)
        #expect((claims["o"] as? [String: Any])?["k"] as? [Int] == [1, 2])
        #expect(claims["s"] as? String == "hello world")
        #expect(claims["z"] as? String == "007")
        #expect(claims["eq"] as? String == "a=b")
        #expect(claims["empty"] as? String == "")
        #expect(claims["sub"] as? String == "final")
        let iat = try #require(claims["iat"] as? Int)
        #expect(iat >= before && iat <= before + 5)
        #expect(claims["exp"] as? Int == iat + 5400)
    }

    @Test func signExitCodes() throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("ec")
        #expect(try cli.run(["keygen", "--alg", "ES256", "--out", keyPath]).status == 0)
        #expect(try cli.run(["sign", "--alg", "XX256", "--secret", Self.secret]).status == 64)
        #expect(try cli.run(["sign", "--alg", "none", "--secret", Self.secret]).status == 64)
        #expect(try cli.run(["sign", "--secret", Self.secret]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256"]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--key", keyPath]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "soon"]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "-5m"]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--claim", "novalue"]).status == 64)
        #expect(try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--claim", "=x"]).status == 64)
        #expect(try cli.run(["sign", "--alg", "ES256", "--secret", Self.secret]).status == 64)
        // 2: public key only, or a key of another type than --alg.
        let publicOnly = try cli.run(["sign", "--alg", "ES256", "--key", keyPath + ".pub"])
        #expect(publicOnly.status == 2)
        #expect(publicOnly.stderr.contains("cannot sign"))
        #expect(try cli.run(["sign", "--alg", "RS256", "--key", keyPath]).status == 2)
        #expect(try cli.run(["sign", "--alg", "ES384", "--key", keyPath]).status == 2)
        #expect(try cli.run(["sign", "--alg", "ES256", "--key", dir.path("missing")]).status == 2)
    }

    // MARK: Keygen

    @Test func keygenRefusesToOverwriteAndForceReplaces() throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("key")
        #expect(try cli.run(["keygen", "--alg", "EdDSA", "--out", keyPath]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        let again = try cli.run(["keygen", "--alg", "EdDSA", "--out", keyPath])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) == original)
        // Only the public file existing is a refusal too, and nothing is written.
        let otherPath = dir.path("other")
        try "keep me".write(toFile: otherPath + ".pub", atomically: true, encoding: .utf8)
        #expect(try cli.run(["keygen", "--alg", "EdDSA", "--out", otherPath]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: otherPath))
        #expect(try String(contentsOfFile: otherPath + ".pub", encoding: .utf8) == "keep me")
        // A symlink at the path is never followed.
        let target = dir.path("target")
        try "target".write(toFile: target, atomically: true, encoding: .utf8)
        let link = dir.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try cli.run(["keygen", "--alg", "EdDSA", "--out", link]).status == 1)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")

        let forced = try cli.run(["keygen", "--alg", "EdDSA", "--out", keyPath, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) != original)
        #expect(try JWTCLIRunner.mode(keyPath) == 0o600)
    }

    @Test func keygenModeIgnoresUmask() throws {
        let dir = try JWTCLITemporaryDirectory()
        for (umask, name) in [("000", "open"), ("077", "closed")] {
            let keyPath = dir.path(name)
            #expect(try cli.run(["keygen", "--alg", "ES256", "--out", keyPath], umask: umask).status == 0)
            #expect(try JWTCLIRunner.mode(keyPath) == 0o600)
            #expect(try JWTCLIRunner.mode(keyPath + ".pub") == 0o644)
        }
    }

    @Test func keygenFormats() throws {
        let pem = try cli.run(["keygen", "--alg", "ES256"])
        #expect(pem.status == 0)
        #expect(pem.stdout.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.stdout.contains("-----END PRIVATE KEY-----\n-----BEGIN PUBLIC KEY-----\n"))

        let jwk = try cli.run(["keygen", "--alg", "Ed25519", "--kid", "ed", "--format", "jwk"])
        let lines = jwk.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let privateJWK = try JWTCLIRunner.jsonObject(lines[0]), publicJWK = try JWTCLIRunner.jsonObject(lines[1])
        #expect(privateJWK["d"] != nil)
        #expect(publicJWK["d"] == nil)
        #expect(publicJWK["kid"] as? String == "ed")
        #expect(publicJWK["alg"] as? String == "Ed25519")
        #expect(publicJWK["crv"] as? String == "Ed25519")

        let secret = try cli.run(["keygen", "--alg", "HS512"])
        let oct = try JWTCLIRunner.jsonObject(secret.stdout)
        #expect(oct["kty"] as? String == "oct")
        #expect(Base64URL.decode(try #require(oct["k"] as? String))?.count == 64)
        #expect(try cli.run(["keygen", "--alg", "HS256", "--format", "pem"]).status == 64)
        #expect(try cli.run(["keygen", "--alg", "none"]).status == 64)
        #expect(try cli.run(["keygen", "--alg", "ES256", "--format", "der"]).status == 64)

        // JWK files: the private one signs, the .pub.json verifies.
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("key.json")
        #expect(try cli.run(["keygen", "--alg", "ES512", "--kid", "e5", "--format", "jwk", "--out", keyPath]).status == 0)
        #expect(try JWTCLIRunner.mode(keyPath) == 0o600)
        let token = try cli.run(["sign", "--alg", "ES512", "--key", keyPath, "--exp", "1m"]).stdout
        let verified = try cli.run(["verify", "--key", keyPath + ".pub.json", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("kid e5"))
    }

    // MARK: JWS

    @Test func jwsModeAcceptsAnyPayload() throws {
        let key = try JWTKey.hmac(Array(Self.secret.utf8))
        let token = try JWS.sign(payload: Array("not json at all".utf8), key: key, algorithm: .hs256)
        let verified = try cli.run(["verify", "--secret", Self.secret, "--jws", "--json", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        let object = try JWTCLIRunner.jsonObject(verified.stdout)
        #expect(object["valid"] as? Bool == true)
        #expect(object["payload"] as? String == "not json at all")
        #expect(try cli.run(["verify", "--secret", Self.secret, "--jws", token]).stdout.hasPrefix("valid signature (HS256)"))
        let asJWT = try cli.run(["verify", "--secret", Self.secret, token])
        #expect(asJWT.status == 1)
        #expect(asJWT.stderr.contains("malformed"))
        #expect(try cli.run(["verify", "--secret", "another secret, also long enough for HS256", "--jws", token]).status == 1)

        let inspect = try cli.run(["inspect", "--json", token])
        #expect(inspect.status == 0)
        let decoded = try JWTCLIRunner.jsonObject(inspect.stdout)
        #expect(decoded["payload"] as? String == "not json at all")
        #expect((decoded["warnings"] as? [String])?.contains { $0.contains("not a JSON object") } == true)
    }

    // MARK: Inspect

    @Test func inspectJSONShape() throws {
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--kid", "k", "--sub", "u", "--exp", "10m"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try cli.run(["inspect", "--json", token])
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix("}\n"))
        #expect(run.stdout.filter { $0 == "\n" }.count == 1)
        let object = try JWTCLIRunner.jsonObject(run.stdout)
        #expect(Set(object.keys) == ["header", "payload", "signature", "warnings"])
        #expect((object["header"] as? [String: Any])?["alg"] as? String == "HS256")
        #expect((object["payload"] as? [String: Any])?["sub"] as? String == "u")
        #expect(object["signature"] as? String == String(token.split(separator: ".")[2]))
        #expect((object["warnings"] as? [String])?.isEmpty == true)
    }

    @Test func inspectReport() throws {
        let token = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--sub", "u", "--exp", "10m"]).stdout
        let run = try cli.run(["inspect", token])
        #expect(run.status == 0)
        for expected in [
            "Header\n{\n  \"alg\": \"HS256\",", "Claims\n{", "\"sub\": \"u\"", "Times (UTC)\n  iat  ", "Z  (issued ",
            "Signature\n  HS256, 32 bytes, not verified",
        ] {
            #expect(run.stdout.contains(expected), "\(expected) in \(run.stdout)")
        }
        // Rounded to the second: 10m just after signing, 9m 5xs a moment later.
        #expect(run.stdout.contains("(expires in 10m)") || run.stdout.contains("(expires in 9m 5"), "\(run.stdout)")
        #expect(!run.stdout.contains("Warnings"))
    }

    @Test func inspectWarnings() throws {
        func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        let cases: [(token: String, warning: String)] = [
            (b64(#"{"alg":"none"}"#) + "." + b64(#"{"sub":"u","exp":4102444800}"#) + ".", #"alg is "none""#),
            (b64(#"{"alg":"HS256"}"#) + "." + b64(#"{"sub":"u"}"#) + ".AAAA", "no exp claim"),
            (b64(#"{"alg":"HS256","crit":["exp-ext"],"exp-ext":1}"#) + "." + b64(#"{"exp":4102444800}"#) + ".AAAA", #"crit lists "exp-ext""#),
            (b64(#"{"alg":"RS256","jku":"https://evil.test/jwks"}"#) + "." + b64(#"{"exp":4102444800}"#) + ".AAAA", "carries jku"),
            (b64(#"{"alg":"HS256"}"#) + "." + b64(#"{"exp":"tomorrow"}"#) + ".AAAA", "exp is not a number"),
            (b64(#"{"alg":"XY999"}"#) + "." + b64(#"{"exp":4102444800}"#) + ".AAAA", "not an algorithm Latchkey verifies"),
        ]
        for (token, warning) in cases {
            let run = try cli.run(["inspect", "--json", token])
            #expect(run.status == 0, "\(token): \(run.stderr)")
            let warnings = try #require(try JWTCLIRunner.jsonObject(run.stdout)["warnings"] as? [String])
            #expect(warnings.contains { $0.contains(warning) }, "\(warning) not in \(warnings)")
            let report = try cli.run(["inspect", token])
            #expect(report.stdout.contains("Warnings\n"))
            if warning.contains("none") { #expect(report.stdout.contains("Signature\n  none, no signature\n")) }
        }
        // Absurd times are shown, not crashed on.
        let absurd = b64(#"{"alg":"HS256"}"#) + "." + b64(#"{"exp":1e300,"iat":-1e300,"nbf":1.5}"#) + ".AAAA"
        let run = try cli.run(["inspect", absurd])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("a very long time"))
    }

    @Test func inspectMalformed() throws {
        for token in ["not.a-token", "abc", "a.b.c.d", "eyJhbGciOiJIUzI1NiJ9.e30.AA==", "W10.e30.AAAA", "%%%.e30.AAAA"] {
            let run = try cli.run(["inspect", token])
            #expect(run.status == 1, "\(token)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("error: malformed token"), "\(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1)
        }
    }

    // MARK: Colour

    @Test func noANSIEscapesWhenPipedOrWithNoColor() throws {
        let expired = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--claim", "exp=1700000000"]).stdout
        let valid = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--exp", "5m"]).stdout
        let outputs = [
            try cli.run(["inspect", expired]).stdout,
            try cli.run(["inspect", expired], environment: ["NO_COLOR": "1"]).stdout,
            try cli.run(["verify", "--secret", Self.secret, valid]).stdout,
        ]
        for output in outputs {
            #expect(!output.isEmpty)
            #expect(!output.contains("\u{1B}"))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pseudo-terminal"))
    func colourOnlyOnATerminalWithoutNoColor() throws {
        let expired = try cli.run(["sign", "--alg", "HS256", "--secret", Self.secret, "--claim", "exp=1700000000"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let terminal = try cli.runOnTerminal(["inspect", expired]).output
        #expect(terminal.contains("\u{1B}[1mHeader"), "\(terminal)")
        #expect(terminal.contains("\u{1B}[31mexpired"))
        let noColor = try cli.runOnTerminal(["inspect", expired], environment: ["NO_COLOR": "1"]).output
        #expect(noColor.contains("Header"))
        #expect(!noColor.contains("\u{1B}["))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pseudo-terminal"))
    func noTokenOnATerminalIsAUsageError() throws {
        // Waiting for a token on a terminal would look like a hang.
        let run = try cli.runOnTerminal(["verify", "--secret", Self.secret])
        #expect(run.status == 64)
        #expect(run.output.contains("no token"))
    }

    // MARK: JWKS

    @Test func jwksListing() throws {
        let dir = try JWTCLITemporaryDirectory()
        #expect(try cli.run(["keygen", "--alg", "RS256", "--kid", "rsa-1", "--format", "jwk", "--out", dir.path("rsa")]).status == 0)
        #expect(try cli.run(["keygen", "--alg", "ES384", "--kid", "ec-1", "--format", "jwk", "--out", dir.path("ec")]).status == 0)
        let rsa = try String(contentsOfFile: dir.path("rsa.pub.json"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let ec = try String(contentsOfFile: dir.path("ec.pub.json"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let okp = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","use":"sig"}"#
        let jwksPath = dir.path("jwks.json")
        try #"{"keys":[\#(rsa),\#(ec),\#(okp),{"kty":"OKP","crv":"X25519","x":"AAAA"},{"kty":"RSA","n":"AQAB","e":"AQAB"},42]}"#
            .write(toFile: jwksPath, atomically: true, encoding: .utf8)
        let listing = try cli.run(["jwks", jwksPath])
        #expect(listing.status == 0, "\(listing.stderr)")
        let lines = listing.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 7)
        #expect(lines[0] == ["KID", "KTY", "ALG", "USE", "SIZE/CURVE"])
        #expect(lines[1] == ["rsa-1", "RSA", "RS256", "sig", "2048", "bits"])
        #expect(lines[2] == ["ec-1", "EC", "ES384", "sig", "P-384"])
        #expect(lines[3] == ["-", "OKP", "-", "sig", "Ed25519"])
        #expect(listing.stdout.contains("skipped key #3: invalid key: unsupported OKP curve \"X25519\""))
        #expect(listing.stdout.contains("skipped key #4: "))
        #expect(listing.stdout.contains("skipped key #5: not a JSON object"))
        #expect(try cli.run(["jwks", "-"], stdin: String(contentsOfFile: jwksPath, encoding: .utf8)).stdout == listing.stdout)

        // Verification through the set: by kid, and without kid only with a matching alg.
        let withKid = try cli.run(["sign", "--alg", "ES384", "--key", dir.path("ec"), "--exp", "1m"]).stdout
        #expect(try cli.run(["verify", "--key", jwksPath, withKid]).status == 0)
        let strangerKid = try cli.run(["sign", "--alg", "ES384", "--key", dir.path("ec"), "--kid", "stranger", "--exp", "1m"]).stdout
        let unknown = try cli.run(["verify", "--key", jwksPath, strangerKid])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no key with kid"))

        // A private JWKS is flagged; a bad file is exit 2.
        let privateSet = dir.path("private.json")
        try #"{"keys":[\#(try String(contentsOfFile: dir.path("ec"), encoding: .utf8))]}"#.write(
            toFile: privateSet, atomically: true, encoding: .utf8)
        #expect(try cli.run(["jwks", privateSet]).stdout.contains("includes private material"))
        #expect(try cli.run(["jwks", dir.path("nothing.json")]).status == 2)
        try "[1,2]".write(toFile: dir.path("array.json"), atomically: true, encoding: .utf8)
        #expect(try cli.run(["jwks", dir.path("array.json")]).status == 2)
        #expect(try cli.run(["jwks"]).status == 64)
    }

    @Test func algPinsKeysWithoutAlg() throws {
        let dir = try JWTCLITemporaryDirectory()
        #expect(try cli.run(["keygen", "--alg", "EdDSA", "--out", dir.path("ed")]).status == 0)
        // A PEM key names no alg: it accepts its type's algorithms, or only --alg.
        let token = try cli.run(["sign", "--alg", "EdDSA", "--key", dir.path("ed"), "--exp", "1m"]).stdout
        #expect(try cli.run(["verify", "--key", dir.path("ed.pub"), token]).status == 0)
        #expect(try cli.run(["verify", "--key", dir.path("ed.pub"), "--alg", "EdDSA", token]).status == 0)
        #expect(try cli.run(["verify", "--key", dir.path("ed.pub"), "--alg", "RS256", token]).status == 2)
        // A JWKS whose key names no alg: a token without kid needs --alg to pick it.
        #expect(try cli.run(["keygen", "--alg", "EdDSA", "--format", "jwk", "--out", dir.path("edjwk")]).status == 0)
        var object = try JWTCLIRunner.jsonObject(String(contentsOfFile: dir.path("edjwk.pub.json"), encoding: .utf8))
        object["alg"] = nil
        let set = try JSONSerialization.data(withJSONObject: ["keys": [object]])
        try set.write(to: URL(fileURLWithPath: dir.path("set.json")))
        let noKid = try cli.run(["sign", "--alg", "EdDSA", "--key", dir.path("edjwk"), "--exp", "1m"]).stdout
        #expect(try cli.run(["verify", "--key", dir.path("set.json"), noKid]).status == 1)
        #expect(try cli.run(["verify", "--key", dir.path("set.json"), "--alg", "EdDSA", noKid]).status == 0)
    }

    // MARK: Secrets stay secret

    @Test func errorsNeverShowKeyMaterial() throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("bad.json")
        let d = "c2VjcmV0LXByaXZhdGUtc2NhbGFyLXRoYXQtbXVzdC1ub3QtbGVhaw"
        try #"{"kty":"EC","crv":"P-256","x":"AA","y":"AA","d":"\#(d)"}"#.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let run = try cli.run(["sign", "--alg", "ES256", "--key", keyPath])
        #expect(run.status == 2)
        #expect(!run.stderr.contains(d))
        let secretFile = dir.path("secret")
        try "short-secret-text".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let short = try cli.run(["sign", "--alg", "HS256", "--secret-file", secretFile])
        #expect(short.status == 2)
        #expect(!short.stderr.contains("short-secret-text"))
        let notAKey = dir.path("notakey")
        try "hunter2-is-my-password".write(toFile: notAKey, atomically: true, encoding: .utf8)
        let verify = try cli.run(["verify", "--key", notAKey, "a.b.c"])
        #expect(verify.status == 2)
        #expect(!verify.stderr.contains("hunter2"))
    }
}

// MARK: - Helpers

/// Runs the built `latchkey` executable with files for its standard streams (so output
/// is never a terminal and large output cannot block on a pipe).
struct JWTCLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable: `$LATCHKEY_EXECUTABLE`, or `latchkey` beside the test bundle in
    /// `<scratch>/debug`, which `swift build --build-tests` builds along with the tests.
    static let executable: String? = {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_EXECUTABLE"] { return path }
        var directories: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL
        directories += [bundle, bundle.deletingLastPathComponent()]
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("latchkey").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }()

    func executablePath() throws -> String {
        guard let path = Self.executable else {
            throw JWTCLIRunnerError("the latchkey executable was not found beside the tests; run `swift build --build-tests` first")
        }
        return path
    }

    /// Runs `latchkey <arguments>` with `stdin` as standard input (empty by default),
    /// extra environment variables, and optionally a umask (through /bin/sh) or another
    /// executable in front (such as setpriv, given latchkey's path among the arguments).
    func run(
        _ arguments: [String], stdin: String = "", environment extra: [String: String] = [:], umask: String? = nil,
        executable: String? = nil, currentDirectory: URL? = nil
    ) throws -> Result {
        let executable = try executable ?? executablePath()
        let dir = try JWTCLITemporaryDirectory()
        let inputURL = dir.url.appendingPathComponent("stdin"), outputURL = dir.url.appendingPathComponent("stdout"),
            errorURL = dir.url.appendingPathComponent("stderr")
        try Data(stdin.utf8).write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let input = try FileHandle(forReadingFrom: inputURL), output = try FileHandle(forWritingTo: outputURL),
            error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? input.close()
            try? output.close()
            try? error.close()
        }

        let process = Process()
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask) && exec \"$0\" \"$@\"", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        try Self.wait(for: process, arguments: arguments)
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outputURL, encoding: .utf8),
            stderr: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// Runs `latchkey <arguments>` on a pseudo-terminal (through script(1)) and returns
    /// what it wrote there.
    func runOnTerminal(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (output: String, status: Int32) {
        let executable = try executablePath()
        let dir = try JWTCLITemporaryDirectory()
        let outputURL = dir.url.appendingPathComponent("typescript")
        let quoted = ([executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", quoted, outputURL.path]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm"
        environment["SHELL"] = "/bin/sh"
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try Self.wait(for: process, arguments: arguments)
        return (String(decoding: try Data(contentsOf: outputURL), as: UTF8.self), process.terminationStatus)
    }

    private static func wait(for process: Process, arguments: [String]) throws {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw JWTCLIRunnerError("latchkey \(arguments.first ?? "") did not finish within 60 s")
            }
            usleep(2_000)
        }
    }

    static func jsonObject(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let object = value as? [String: Any] else { throw JWTCLIRunnerError("not a JSON object: \(text)") }
        return object
    }

    static func mode(_ path: String) throws -> Int {
        guard let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int else {
            throw JWTCLIRunnerError("no mode for \(path)")
        }
        return mode & 0o777
    }

    /// `token` with one character of `segment` (1: payload, 2: signature) changed to
    /// another base64url character.
    static func flipCharacter(in token: String, segment: Int) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var characters = Array(parts[segment])
        let index = characters.count / 2
        characters[index] = characters[index] == "A" ? "B" : "A"
        parts[segment] = String(characters)
        return parts.joined(separator: ".")
    }
}

private struct JWTCLIRunnerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A temporary directory removed when the last reference goes away.
final class JWTCLITemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-jwt-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
