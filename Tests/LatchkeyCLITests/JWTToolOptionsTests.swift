import Foundation
import LatchkeyJWT
import Testing

/// The JWT tools' options: sign's payload file and extra header members, keygen's kid
/// with PEM, verify's required claims, and durations that must carry a unit. Each test
/// runs the built executable.
@Suite struct JWTToolOptionsTests {
    private let cli = JWTCLIRunner()
    private static let secret = "correct horse battery staple, long enough for HS256"
    private static let hs256 = ["sign", "--alg", "HS256", "--secret", secret]

    private func inspect(_ token: String) throws -> (header: [String: Any], payload: [String: Any]) {
        let run = try cli.run(["inspect", "--json", token])
        let object = try JWTCLIRunner.jsonObject(run.stdout)
        return (try #require(object["header"] as? [String: Any]), try #require(object["payload"] as? [String: Any]))
    }

    // MARK: sign --payload-file

    @Test func payloadFromAFileIsTheBaseTheFlagsOverride() throws {
        let dir = try JWTCLITemporaryDirectory()
        let path = dir.path("claims.json")
        try #"{"sub":"from-file","n":1,"iat":1000,"roles":["a","b"],"nested":{"k":true}}"#.appending("\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let before = Int(Date().timeIntervalSince1970)
        let run = try cli.run(Self.hs256 + ["--payload-file", path, "--exp", "5m", "--claim", "n=2", "--iss", "https://issuer.test/"])
        #expect(run.status == 0, "\(run.stderr)")
        let claims = try inspect(run.stdout).payload
        #expect(claims["sub"] as? String == "from-file")
        #expect(claims["n"] as? Int == 2)
        #expect(claims["iat"] as? Int == 1000, "the payload's iat is kept")
        #expect(claims["roles"] as? [String] == ["a", "b"])
        #expect((claims["nested"] as? [String: Any])?["k"] as? Bool == true)
        #expect(claims["iss"] as? String == "https://issuer.test/")
        let exp = try #require(claims["exp"] as? Int)
        #expect(exp >= before + 300 && exp <= before + 305)
    }

    @Test func payloadFromStandardInput() throws {
        let before = Int(Date().timeIntervalSince1970)
        let run = try cli.run(Self.hs256 + ["--payload-file", "-"], stdin: #"  {"sub":"piped"}  "#)
        #expect(run.status == 0, "\(run.stderr)")
        let claims = try inspect(run.stdout).payload
        #expect(claims["sub"] as? String == "piped")
        let iat = try #require(claims["iat"] as? Int)
        #expect(iat >= before && iat <= before + 5)
        #expect(try cli.run(["verify", "--secret", Self.secret, run.stdout]).status == 0)
    }

    @Test func badPayloadsFailWithTheReason() throws {
        let dir = try JWTCLITemporaryDirectory()
        let cases: [(input: String, message: String)] = [
            ("[1,2]", "not a JSON object"),
            ("\"text\"", "not a JSON object"),
            ("{\"a\":1", "invalid JSON"),
            ("{\"a\":1,\"a\":2}", "invalid JSON"),
            ("", "invalid JSON"),
        ]
        for (input, message) in cases {
            let run = try cli.run(Self.hs256 + ["--payload-file", "-"], stdin: input)
            #expect(run.status == 1, "\(input)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("error: payload from standard input: "), "\(input): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(input): \(run.stderr)")
        }
        let missing = try cli.run(Self.hs256 + ["--payload-file", dir.path("absent.json")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read payload file"))
        let big = try cli.run(Self.hs256 + ["--payload-file", "-"], stdin: "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(big.status == 1)
        #expect(big.stderr.contains("larger than 65536 bytes"))
        let bigPath = dir.path("big.json")
        try ("{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}").write(toFile: bigPath, atomically: true, encoding: .utf8)
        #expect(try cli.run(Self.hs256 + ["--payload-file", bigPath]).status == 1)
        #expect(try cli.run(Self.hs256 + ["--payload-file", ""]).status == 64)
    }

    // MARK: sign --header

    @Test func extraHeaderMembers() throws {
        let run = try cli.run(
            Self.hs256 + [
                "--kid", "k9", "--header", "cty=example", "--header", "x5u=https://keys.test/k9",
                "--header", "n=5", "--header", #"crit=["n"]"#,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let header = try inspect(run.stdout).header
        #expect(header["alg"] as? String == "HS256")
        #expect(header["kid"] as? String == "k9")
        #expect(header["typ"] as? String == "JWT")
        #expect(header["cty"] as? String == "example")
        #expect(header["x5u"] as? String == "https://keys.test/k9")
        #expect(header["n"] as? Int == 5)
        #expect(header["crit"] as? [String] == ["n"])
        let typed = try cli.run(Self.hs256 + ["--typ", "at+jwt"])
        #expect(try inspect(typed.stdout).header["typ"] as? String == "at+jwt")
    }

    @Test(arguments: [
        ("alg=none", "alg cannot be set with --header; the algorithm is --alg's"),
        ("kid=other", "kid cannot be set with --header; use --kid"),
        ("typ=at+jwt", "typ cannot be set with --header; use --typ"),
        ("b64=false", "not supported"),
        ("novalue", "--header takes NAME=VALUE"),
        ("=x", "--header takes NAME=VALUE"),
    ])
    func headerMembersThatAreRefused(_ member: String, _ message: String) throws {
        let run = try cli.run(Self.hs256 + ["--header", member])
        #expect(run.status == 64, "\(member)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message), "\(member): \(run.stderr)")
    }

    @Test func aHeaderMemberGivenTwiceIsRefused() throws {
        let run = try cli.run(Self.hs256 + ["--header", "cty=a", "--header", "cty=b"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--header cty is given twice"))
    }

    @Test func critMustNameHeaderMembersGivenWithIt() throws {
        // A token whose crit names a member it lacks is malformed: never sign one.
        for crit in [#"crit=["exp"]"#, #"crit=["n","x"]"#, "crit=n", "crit=[]", "crit=[1]"] {
            let run = try cli.run(Self.hs256 + ["--header", "n=1", "--header", crit])
            #expect(run.status == 64, "\(crit)")
            #expect(run.stderr.contains("crit"), "\(crit): \(run.stderr)")
        }
    }

    // MARK: keygen --kid with PEM

    @Test func keygenWritesTheKidBesideAPEMKey() throws {
        let dir = try JWTCLITemporaryDirectory()
        let keyPath = dir.path("key")
        let run = try cli.run(["keygen", "--alg", "ES256", "--kid", "k1", "--out", keyPath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(keyPath).pub.json (public JWK with kid \"k1\", which PEM cannot hold)"))
        #expect(try String(contentsOfFile: keyPath, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try String(contentsOfFile: keyPath + ".pub", encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let jwk = try JWTCLIRunner.jsonObject(try String(contentsOfFile: keyPath + ".pub.json", encoding: .utf8))
        #expect(jwk["kid"] as? String == "k1")
        #expect(jwk["d"] == nil)
        #expect(try JWTCLIRunner.mode(keyPath + ".pub.json") == 0o644)
        // The JWK beside is the same key as the PEM: a token signed with the PEM verifies with it.
        let token = try cli.run(["sign", "--alg", "ES256", "--key", keyPath, "--kid", "k1", "--exp", "1m"]).stdout
        let verified = try cli.run(["verify", "--key", keyPath + ".pub.json", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("kid k1"))
        // Without --force, none of the three files is replaced; with it, all are.
        let again = try cli.run(["keygen", "--alg", "ES256", "--kid", "k2", "--out", keyPath])
        #expect(again.status == 1)
        #expect(try JWTCLIRunner.jsonObject(try String(contentsOfFile: keyPath + ".pub.json", encoding: .utf8))["kid"] as? String == "k1")
        // Only the JWK existing blocks the whole write.
        let other = dir.path("other")
        try "keep".write(toFile: other + ".pub.json", atomically: true, encoding: .utf8)
        #expect(try cli.run(["keygen", "--alg", "ES256", "--kid", "k3", "--out", other]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(!FileManager.default.fileExists(atPath: other + ".pub"))
        let forced = try cli.run(["keygen", "--alg", "ES256", "--kid", "k2", "--out", keyPath, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try JWTCLIRunner.jsonObject(try String(contentsOfFile: keyPath + ".pub.json", encoding: .utf8))["kid"] as? String == "k2")
        // No kid: no JWK beside.
        let plain = dir.path("plain")
        #expect(try cli.run(["keygen", "--alg", "ES256", "--out", plain]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: plain + ".pub.json"))
    }

    @Test func keygenSaysTheKidIsNotInPEMOutput() throws {
        // A kid with a "-", which base64 never has: "k1" turned up inside a random key's
        // PEM about once in 50 runs.
        let run = try cli.run(["keygen", "--alg", "EdDSA", "--kid", "signing-key-1"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(!run.stdout.contains("signing-key-1"))
        #expect(run.stderr.contains("note: the kid \"signing-key-1\" is not in the PEM output"))
        let jwk = try cli.run(["keygen", "--alg", "EdDSA", "--kid", "signing-key-1", "--format", "jwk"])
        #expect(jwk.stderr.isEmpty)
        #expect(try cli.run(["keygen", "--alg", "EdDSA"]).stderr.isEmpty)
    }

    // MARK: verify --require / --strict

    @Test func requiredClaims() throws {
        let bare = try cli.run(Self.hs256 + ["--sub", "u"]).stdout
        let full = try cli.run(Self.hs256 + ["--sub", "u", "--exp", "5m", "--iss", "https://i.test/", "--aud", "app"]).stdout
        let verify = ["verify", "--secret", Self.secret]

        #expect(try cli.run(verify + [bare]).status == 0)
        let noIss = try cli.run(verify + ["--require", "exp,iss", bare])
        #expect(noIss.status == 1)
        #expect(noIss.stderr.contains("required claim \"exp\" is missing"), "\(noIss.stderr)")
        #expect(try cli.run(verify + ["--require", "sub", "--require", "iat", bare]).status == 0)
        #expect(try cli.run(verify + ["--require", "exp, iss ,sub,aud", full]).status == 0)

        let strictBare = try cli.run(verify + ["--strict", bare])
        #expect(strictBare.status == 1)
        #expect(strictBare.stderr.contains("required claim"))
        let noAud = try cli.run(Self.hs256 + ["--exp", "5m", "--iss", "https://i.test/"]).stdout
        let strictNoAud = try cli.run(verify + ["--strict", "--json", noAud])
        #expect(strictNoAud.status == 1)
        #expect(try JWTCLIRunner.jsonObject(strictNoAud.stdout)["message"] as? String == "required claim \"aud\" is missing")
        #expect(try cli.run(verify + ["--strict", full]).status == 0)
        // --strict checks presence; --aud still checks the value.
        #expect(try cli.run(verify + ["--strict", "--aud", "other", full]).status == 1)

        #expect(try cli.run(verify + ["--require", "", full]).status == 64)
        #expect(try cli.run(verify + ["--require", "exp,,iss", full]).status == 64)
        #expect(try cli.run(verify + ["--jws", "--strict", full]).status == 64)
        #expect(try cli.run(verify + ["--jws", "--require", "exp", full]).status == 64)
    }

    // MARK: Durations

    @Test(arguments: ["5", "3600", "0.5"])
    func aDurationWithoutAUnitIsRefusedWithTheQuestion(_ exp: String) throws {
        let run = try cli.run(Self.hs256 + ["--exp", exp])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\"\(exp)\" has no unit: \(exp)s, \(exp)m, \(exp)h or \(exp)d?"), "\(run.stderr)")
    }

    @Test(arguments: [("5s", 5), ("5m", 300), ("1h30m", 5_400), ("2d", 172_800), ("1w", 604_800), ("1.5h", 5_400)])
    func durationsWithUnits(_ exp: String, _ seconds: Int) throws {
        let run = try cli.run(Self.hs256 + ["--exp", exp])
        #expect(run.status == 0, "\(run.stderr)")
        let claims = try inspect(run.stdout).payload
        #expect((claims["exp"] as? Int).map { $0 - (claims["iat"] as? Int ?? 0) } == seconds)
    }

    @Test(arguments: ["5x", "m5", "1h30", "0s", "-5m", "", "99999999999999999999999w"])
    func otherBadDurations(_ exp: String) throws {
        let run = try cli.run(Self.hs256 + ["--exp", exp])
        #expect(run.status == 64, "\(exp)")
        #expect(run.stderr.contains("--exp"), "\(exp): \(run.stderr)")
    }
}
