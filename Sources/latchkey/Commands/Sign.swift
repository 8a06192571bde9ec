import ArgumentParser
import Foundation
import LatchkeyJSON
import LatchkeyJWT

extension Latchkey {
    /// `latchkey sign`: issue a token, for development and tests.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a JWT and print it.",
            discussion: """
            The claims are iat (now), then --sub, --iss, --aud, exp (now + --exp), then each --claim \
            in order, so a --claim can override any of them (--claim exp=1700000000 makes an expired token). \
            The header is {"alg", "kid" (from --kid or the key), "typ": "JWT"}.

            Exit status: 0 printed; 2 the key is unreadable, public only, or not for --alg; 64 usage error.
            """)

        @Option(help: ArgumentHelp("The algorithm.", valueName: "alg"))
        var alg: AlgorithmArgument

        @OptionGroup var keyOptions: KeyOptions

        @Option(help: ArgumentHelp("The kid header (overrides the key's own kid); picks the key from a JWKS.", valueName: "kid"))
        var kid: String?

        @Option(name: .customLong("claim"), help: ArgumentHelp(
            "A claim, NAME=VALUE. VALUE is used as JSON when it is JSON (42, true, [\"a\"], {\"k\":1}), else as a string. Repeatable.",
            valueName: "name=value"))
        var claims: [String] = []

        @Option(help: ArgumentHelp("Subject (sub).", valueName: "subject")) var sub: String?
        @Option(help: ArgumentHelp("Issuer (iss).", valueName: "issuer")) var iss: String?
        @Option(help: ArgumentHelp("Audience (aud). For several: --claim 'aud=[\"a\",\"b\"]'.", valueName: "audience")) var aud: String?
        @Option(help: ArgumentHelp("Lifetime, setting exp: 90s, 5m, 1h, 30d, 2w, 1h30m.", valueName: "duration")) var exp: String?

        func validate() throws {
            try keyOptions.validate(algorithm: alg)
            if let exp, Durations.parse(exp) == nil {
                throw ValidationError("--exp takes a duration such as 90s, 5m, 1h, 30d or 1h30m")
            }
            for claim in claims {
                guard let equals = claim.firstIndex(of: "="), equals != claim.startIndex else {
                    throw ValidationError("--claim takes NAME=VALUE, got \"\(claim)\"")
                }
            }
        }

        func run() async throws {
            let key = try keyOptions.signingKey(algorithm: alg.algorithm, keyID: kid)
            let now = Date().timeIntervalSince1970.rounded(.down)
            var object: JSONObject = ["iat": .number(now)]
            if let sub { object["sub"] = .string(sub) }
            if let iss { object["iss"] = .string(iss) }
            if let aud { object["aud"] = .string(aud) }
            if let exp, let lifetime = Durations.parse(exp) { object["exp"] = .number(now + lifetime.rounded()) }
            for claim in claims {
                let equals = claim.firstIndex(of: "=")!
                let value = String(claim[claim.index(after: equals)...])
                object[String(claim[..<equals])] = (try? JSONValue.parse(value)) ?? .string(value)
            }
            do {
                print(try JWT.sign(object, key: key, algorithm: alg.algorithm))
            } catch let error as JWTError {
                let keyProblem: Set<JWTError.Code> = [.algorithmMismatch, .keyUsageNotAllowed, .invalidKey]
                throw fail(error.message, status: keyProblem.contains(error.code) ? ExitStatus.keyProblem : ExitStatus.failure)
            }
        }
    }
}
