import Foundation
import Testing

/// The JWT commands, end to end against the built executable.
@Suite struct JWTCLITests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    func latchkey(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try latchkeyExecutable())
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(arguments: ["RS256", "PS256", "ES256", "ES384", "EdDSA", "Ed25519"])
    func keygenSignVerifyRoundTrip(alg: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyPath = dir.appendingPathComponent("k.key").path
        let keygen = try latchkey(["keygen", "--alg", alg, "--kid", "k1", "--out", keyPath])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Refuses to overwrite.
        #expect(try latchkey(["keygen", "--alg", alg, "--out", keyPath]).status == 1)
        let signed = try latchkey(["sign", "--alg", alg, "--key", keyPath, "--sub", "user-1", "--aud", "app", "--exp", "5m", "--claim", "roles=[\"admin\"]", "--claim", "plan=pro"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try latchkey(["verify", "--key", keyPath + ".pub", "--aud", "app", "--json", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        let result = try jsonObject(verified.stdout)
        #expect(result["valid"] as? Bool == true)
        let payload = try #require(result["payload"] as? [String: Any])
        #expect(payload["roles"] as? [String] == ["admin"])
        #expect(payload["plan"] as? String == "pro")
        // Wrong audience, tampered payload: exit 1 with the reason on stderr.
        let wrongAudience = try latchkey(["verify", "--key", keyPath + ".pub", "--aud", "other", token])
        #expect(wrongAudience.status == 1)
        #expect(wrongAudience.stderr.contains("wrong audience"))
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].dropLast()) + (parts[1].last == "A" ? "B" : "A")
        #expect(try latchkey(["verify", "--key", keyPath + ".pub", parts.joined(separator: ".")]).status == 1)
    }

    @Test func jwkFormatAndJWKSListing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyPath = dir.appendingPathComponent("k.json").path
        #expect(try latchkey(["keygen", "--alg", "ES256", "--kid", "ec-1", "--format", "jwk", "--out", keyPath]).status == 0)
        let publicJWK = try String(contentsOfFile: keyPath + ".pub.json", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let jwksPath = dir.appendingPathComponent("jwks.json").path
        try "{\"keys\":[\(publicJWK),{\"kty\":\"OKP\",\"crv\":\"X25519\",\"x\":\"AAAA\"}]}".write(toFile: jwksPath, atomically: true, encoding: .utf8)
        let listing = try latchkey(["jwks", jwksPath])
        #expect(listing.status == 0)
        #expect(listing.stdout.contains("ec-1"))
        #expect(listing.stdout.contains("P-256"))
        #expect(listing.stdout.contains("skipped key #1"))
        let token = try latchkey(["sign", "--alg", "ES256", "--key", keyPath, "--exp", "1h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try latchkey(["verify", "--key", jwksPath, token]).status == 0)
    }

    @Test func secretStdinAndBearerPrefix() throws {
        let secret = "a shared secret that is long enough for HS256"
        let token = try latchkey(["sign", "--alg", "HS256", "--secret", secret, "--exp", "1h"]).stdout
        #expect(try latchkey(["verify", "--secret", secret, "-"], input: token).status == 0)
        #expect(try latchkey(["verify", "--secret", secret], input: "Bearer " + token).status == 0)
        #expect(try latchkey(["verify", "--secret", "another secret that is long enough for HS256"], input: token).status == 1)
        // A short secret is a key error (2), never echoed back.
        let short = try latchkey(["verify", "--secret", "short-secret-value", token])
        #expect(short.status == 2)
        #expect(!short.stderr.contains("short-secret-value"))
    }

    @Test func exitCodesForUsageAndKeys() throws {
        let token = try latchkey(["sign", "--alg", "HS256", "--secret", String(repeating: "s", count: 32)]).stdout
        #expect(try latchkey(["verify", "--key", "/nonexistent", "--secret", "x", token]).status == 64)
        #expect(try latchkey(["verify", token]).status == 64)
        #expect(try latchkey(["verify", "--key", "/nonexistent/key.pem", token]).status == 2)
        #expect(try latchkey(["sign", "--alg", "XX256", "--secret", "s"]).status == 64)
        #expect(try latchkey(["inspect", "not.a-token"]).status == 1)
    }

    @Test func expiredTokenIsRefusedAndInspectWarns() throws {
        let secret = String(repeating: "k", count: 32)
        // Signed 2 hours ago by hand: exp in the past.
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"HS256","typ":"JWT"}"#, claims = "{\"sub\":\"u\",\"iat\":\(now - 7200),\"exp\":\(now - 3600)}"
        func b64(_ s: [UInt8]) -> String { Data(s).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") }
        let input = b64(Array(header.utf8)) + "." + b64(Array(claims.utf8))
        let mac = try latchkeyHMAC(secret: secret, input: input)
        let token = input + "." + mac
        let verify = try latchkey(["verify", "--secret", secret, token])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("expired at"))
        let inspect = try latchkey(["inspect", "--json", token])
        #expect(inspect.status == 0)
        let object = try jsonObject(inspect.stdout)
        #expect(Set(object.keys) == ["header", "payload", "signature", "warnings"])
        let warnings = try #require(object["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("expired") })
        let plain = try latchkey(["inspect", token], environment: ["NO_COLOR": "1"])
        #expect(plain.stdout.contains("expired 1h"))
        #expect(!plain.stdout.contains("\u{1B}["))
    }

    @Test func jwsModeAcceptsAnyPayload() throws {
        let secret = String(repeating: "j", count: 32)
        func b64(_ s: String) -> String { Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") }
        let input = b64(#"{"alg":"HS256"}"#) + "." + b64("not json at all")
        let token = input + "." + (try latchkeyHMAC(secret: secret, input: input))
        #expect(try latchkey(["verify", "--secret", secret, "--jws", token]).status == 0)
        #expect(try latchkey(["verify", "--secret", secret, token]).status == 1)
    }

    /// HMAC-SHA-256 of `input`, base64url, computed by the system's `openssl` tool
    /// (an independent implementation).
    func latchkeyHMAC(secret: String, input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf '%s' \"$INPUT\" | openssl dgst -sha256 -mac HMAC -macopt \"key:$SECRET\" -binary | openssl base64 -A | tr '+/' '-_' | tr -d '='"]
        process.environment = ["INPUT": input, "SECRET": secret, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
