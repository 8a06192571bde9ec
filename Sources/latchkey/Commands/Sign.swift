import ArgumentParser
import Foundation
import LatchkeyJWT

extension Latchkey {
    /// `latchkey sign`: issue a token for development and tests.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign a JWT and print it.")

        @Option(help: "The algorithm (HS256 … EdDSA, Ed25519).")
        var alg: String

        @Option(help: "A PEM or JWK file with the private key.")
        var key: String?

        @Option(help: "An HMAC secret, as text.")
        var secret: String?

        @Option(help: "The kid header.")
        var kid: String?

        @Option(name: .customLong("claim"), help: "NAME=VALUE; VALUE is parsed as JSON when it is JSON, else taken as a string. Repeatable.")
        var claims: [String] = []

        @Option(help: "Subject (sub).") var sub: String?
        @Option(help: "Issuer (iss).") var iss: String?
        @Option(help: "Audience (aud).") var aud: String?
        @Option(help: "Lifetime: 90s, 5m, 1h, 30d (sets exp).") var exp: String?

        func validate() throws {
            guard JWSAlgorithm.parse(alg) != nil, JWSAlgorithm.parse(alg) != JWSAlgorithm.none else {
                throw ValidationError("unknown or unsigned algorithm \"\(alg)\"")
            }
            guard (key == nil) != (secret == nil) else { throw ValidationError("give exactly one of --key or --secret") }
            if let exp, parseDuration(exp) == nil { throw ValidationError("--exp takes a duration such as 90s, 5m, 1h or 30d") }
            for claim in claims where !claim.contains("=") || claim.hasPrefix("=") {
                throw ValidationError("--claim takes NAME=VALUE, got \"\(claim)\"")
            }
        }

        func run() async throws {
            let algorithm = JWSAlgorithm.parse(alg)!
            let signingKey = try key.map { try KeyFile.loadSigningKey($0, algorithm: algorithm, keyID: kid) }
                ?? KeyFile.secret(Array(secret!.utf8), algorithm: algorithm, keyID: kid)
            let now = Date().timeIntervalSince1970.rounded(.down)
            var object: JSONObject = ["iat": .number(now)]
            if let sub { object["sub"] = .string(sub) }
            if let iss { object["iss"] = .string(iss) }
            if let aud { object["aud"] = .string(aud) }
            if let exp, let seconds = parseDuration(exp) { object["exp"] = .number(now + seconds.rounded()) }
            for claim in claims {
                let name = String(claim.prefix(while: { $0 != "=" }))
                let value = String(claim.dropFirst(name.count + 1))
                object[name] = (try? JSONValue.parse(value)) ?? .string(value)
            }
            do {
                print(try JWT.sign(object, key: signingKey, algorithm: algorithm))
            } catch let error as JWTError {
                throw fail(error.message, code: error.code == .algorithmMismatch || error.code == .keyUsageNotAllowed ? keyErrorExitCode : 1)
            }
        }
    }
}
