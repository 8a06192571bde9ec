import ArgumentParser
import Foundation
import LatchkeyJWT

extension Latchkey {
    /// `latchkey verify`: check a token's signature and claims.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a JWT (signature and claims) or, with --jws, a JWS signature only.",
            discussion: "Exit status: 0 valid, 1 invalid or malformed (reason on stderr), 2 unreadable or invalid key, 64 bad usage.")

        @Argument(help: "The token, or `-` (default) to read standard input.")
        var token: String?

        @Option(help: "A PEM, JWK or JWKS file with the verification key(s).")
        var key: String?

        @Option(help: "An HMAC secret, as text.")
        var secret: String?

        @Option(help: "A file whose bytes are the HMAC secret.")
        var secretFile: String?

        @Option(help: "Accept only this algorithm.")
        var alg: String?

        @Option(help: "Required issuer (iss).")
        var iss: String?

        @Option(help: "Required audience (aud must contain it).")
        var aud: String?

        @Option(help: "Clock-skew tolerance in seconds.")
        var leeway: Double = 60

        @Flag(help: "Verify the signature only; the payload may be anything.")
        var jws = false

        @Flag(help: "Print the result as one JSON object.")
        var json = false

        func validate() throws {
            let sources = [key, secret, secretFile].compactMap { $0 }.count
            guard sources == 1 else { throw ValidationError("give exactly one of --key, --secret or --secret-file") }
            if let alg, JWSAlgorithm.parse(alg) == nil { throw ValidationError("unknown algorithm \"\(alg)\"") }
            guard leeway >= 0 else { throw ValidationError("--leeway must not be negative") }
        }

        func run() async throws {
            let text = try TokenInput.read(token)
            let algorithm = alg.flatMap(JWSAlgorithm.parse)
            let keys: any JWTKeySource
            if let key {
                keys = try KeyFile.load(key, algorithm: algorithm)
            } else if let secret {
                keys = try KeyFile.secret(Array(secret.utf8), algorithm: algorithm)
            } else {
                guard let path = secretFile, let data = FileManager.default.contents(atPath: path) else {
                    throw fail("cannot read secret file \(secretFile ?? "")", code: keyErrorExitCode)
                }
                keys = try KeyFile.secret(Array(data), algorithm: algorithm)
            }
            var jwsOptions = JWSOptions()
            if let algorithm { jwsOptions.allowedAlgorithms = [algorithm] }
            do {
                let header: JWSHeader
                let payload: JSONValue
                if jws {
                    let verified = try JWS.verify(text, keys: keys, options: jwsOptions)
                    header = verified.header
                    payload = .string(String(decoding: verified.payload, as: UTF8.self))
                } else {
                    let options = JWTValidationOptions(issuer: iss, audience: aud, leeway: leeway, jws: jwsOptions)
                    let jwt = try JWT.verify(text, keys: keys, options: options)
                    header = jwt.header
                    payload = .object(jwt.claims.object)
                }
                if json {
                    print(JSONValue.object(["valid": true, "header": .object(header.object), "payload": payload]).jsonText)
                } else {
                    print(Terminal.green("valid") + " (\(header.algorithmName)\(header.keyID.map { ", kid \($0)" } ?? ""))")
                }
            } catch let error as JWTError {
                if json {
                    print(JSONValue.object(["valid": false, "error": .string(error.code.description), "message": .string(error.message)]).jsonText)
                }
                throw fail("invalid: \(error.message)")
            }
        }
    }
}
