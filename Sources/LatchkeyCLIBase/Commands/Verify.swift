package import ArgumentParser
import FoundationEssentials
import Glibc
import LatchkeyJSON
import LatchkeyJWT

/// `latchkey verify`: check a token's signature and, for a JWT, its claims.
package struct VerifyCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a JWT (signature and claims), or with --jws a JWS signature only.",
        discussion: """
            The key decides which algorithms are accepted: a JWK's alg, --alg, or else those of \
            the key's type and curve (RSA: RS*/PS*, P-256: ES256, Ed25519: EdDSA/Ed25519, secret: HS*). \
            From a JWKS the key is picked by the token's kid; a token without kid only tries keys \
            whose alg matches (--alg gives keys without one that alg). exp and nbf are checked \
            with --leeway seconds of tolerance; iss and aud only when --iss and --aud are given.

            --require exp,iss,... refuses a token that lacks any of the named claims (repeatable, \
            comma-separated); --strict is --require exp,iss,aud, so a token that never expires or \
            names no issuer or audience is refused. They check presence; --iss and --aud check values.

            With --json, one line on standard output: {"valid":true,"header":{...},"payload":...} \
            or {"valid":false,"error":"<code>","message":"..."}.

            Exit status: 0 valid; 1 invalid or malformed (the reason on standard error); \
            2 the key file or secret is unreadable or not a usable key; 64 usage error.
            """)

    @OptionGroup var input: TokenInput

    @OptionGroup var keyOptions: KeyOptions

    @Option(help: ArgumentHelp("Accept only this algorithm.", valueName: "alg"))
    var alg: AlgorithmArgument?

    @Option(help: ArgumentHelp("Require this issuer (iss).", valueName: "issuer"))
    var iss: String?

    @Option(help: ArgumentHelp("Require this audience (aud must be it or contain it).", valueName: "audience"))
    var aud: String?

    @Option(
        name: .customLong("require"),
        help: ArgumentHelp(
            "Claims the token must have, comma-separated (exp,iss,sub). Repeatable.", valueName: "claims"))
    var requireLists: [String] = []

    @Flag(help: "Require exp, iss and aud (as --require exp,iss,aud).")
    var strict = false

    @Option(help: ArgumentHelp("Clock-skew tolerance for exp, nbf and iat, in seconds.", valueName: "seconds"))
    var leeway: Int = 60

    @Flag(help: "Verify the signature only; the payload may be anything and no claim is checked.")
    var jws = false

    @Flag(help: "Print the result as one JSON object on one line.")
    var json = false

    package func validate() throws {
        try keyOptions.validate(algorithm: alg)
        guard leeway >= 0 else { throw ValidationError("--leeway takes a number of seconds, 0 or more") }
        if jws, iss != nil || aud != nil || strict || !requireLists.isEmpty {
            throw ValidationError("--jws checks no claims; drop --iss, --aud, --require and --strict, or drop --jws")
        }
        for list in requireLists {
            let names = list.split(separator: ",", omittingEmptySubsequences: false)
            if names.contains(where: { $0.trimming(while: \.isWhitespace).isEmpty }) {
                throw ValidationError("--require takes claim names separated by commas, such as exp,iss,aud; got \"\(list)\"")
            }
        }
    }

    /// The claims that must be present: every `--require` name, plus exp, iss and aud
    /// with `--strict`.
    var requiredClaims: Swift.Set<String> {
        var names = Swift.Set(requireLists.flatMap { $0.split(separator: ",").map { $0.trimming(while: \.isWhitespace) } })
        if strict { names.formUnion(["exp", "iss", "aud"]) }
        return names
    }

    package func run() throws {
        let token = try input.read()
        let keys = try keyOptions.verificationKeys(algorithm: alg?.algorithm)
        var jwsOptions = JWSOptions()
        if let alg { jwsOptions.allowedAlgorithms = [alg.algorithm] }

        let header: JWSHeader
        let payload: JSONValue
        do {
            if jws {
                let verified = try JWS.verify(token, keys: keys, options: jwsOptions)
                header = verified.header
                payload = InspectCommand.payloadValue(verified.payload)
            } else {
                let options = JWTValidationOptions(
                    issuer: iss, audience: aud, requiredClaims: requiredClaims,
                    leeway: TimeInterval(leeway), jws: jwsOptions)
                let jwt = try JWT.verify(token, keys: keys, options: options)
                header = jwt.header
                payload = .object(jwt.claims.object)
            }
        } catch let error as JWTError {
            if json {
                let result: JSONObject = ["valid": false, "error": .string(error.code.description), "message": .string(error.message)]
                print(JSONValue.object(result).jsonText)
            }
            throw fail("token refused: \(error.message)")
        }

        if json {
            print(JSONValue.object(["valid": true, "header": .object(header.object), "payload": payload]).jsonText)
            return
        }
        var details = [header.algorithmName]
        if let kid = header.keyID { details.append("kid \(kid)") }
        if !jws, let claims = payload.objectValue {
            if let sub = claims["sub"]?.stringValue { details.append("sub \(sub)") }
            if let exp = claims["exp"]?.numberValue {
                details.append(Durations.expiry(Date(timeIntervalSince1970: exp), now: Date()))
            } else {
                details.append("no exp")
            }
        }
        print(Colour.green(jws ? "valid signature" : "valid") + " (\(TerminalText.escape(details.joined(separator: ", "))))")
    }
}
