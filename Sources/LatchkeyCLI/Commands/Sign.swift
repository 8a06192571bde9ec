import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeyJSON
import LatchkeyJWT

extension LatchkeyCommand {
    /// `latchkey sign`: issue a token, for development and tests.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Sign a JWT and print it.",
            discussion: """
                The claims are the members of --payload-file's JSON object (if given), then iat (now, \
                unless the payload has one), --sub, --iss, --aud, exp (now + --exp), then each --claim in \
                order; each replaces an earlier member of its name, so --claim exp=1700000000 makes an \
                expired token. --payload-file - reads the object from standard input (at most 64 KiB).

                The header is {"alg" (--alg), "kid" (--kid or the key's), "typ" (--typ, default JWT)}, \
                then each --header member. alg, kid and typ are refused in --header (so none is \
                replaced behind your back), as is b64 (unencoded payloads are not supported).

                Durations take a unit: 90s, 5m, 1h, 30d, 2w, 1h30m (a bare 5 is refused: seconds or days?).

                Exit status: 0 printed; 1 the payload file is unreadable or not a JSON object; 2 the key is \
                unreadable, public only, or not for --alg; 64 usage error.
                """)

        @Option(help: ArgumentHelp("The algorithm.", valueName: "alg"))
        var alg: AlgorithmArgument

        @OptionGroup var keyOptions: KeyOptions

        @Option(help: ArgumentHelp("The kid header (overrides the key's own kid); picks the key from a JWKS.", valueName: "kid"))
        var kid: String?

        @Option(help: ArgumentHelp("The typ header.", valueName: "type"))
        var typ = "JWT"

        @Option(
            name: .customLong("payload-file"),
            help: ArgumentHelp(
                "A JSON object to start the claims from: a file, or - for standard input.",
                valueName: "path"))
        var payloadFile: String?

        @Option(
            name: .customLong("claim"),
            help: ArgumentHelp(
                "A claim, NAME=VALUE. VALUE is used as JSON when it is JSON (42, true, [\"a\"], {\"k\":1}), else as a string. Repeatable.",
                valueName: "name=value"))
        var claims: [String] = []

        @Option(
            name: .customLong("header"),
            help: ArgumentHelp(
                "An extra header member, NAME=VALUE, VALUE as for --claim. Repeatable. Not alg, kid or typ: use --alg, --kid and --typ.",
                valueName: "name=value"))
        var headers: [String] = []

        @Option(help: ArgumentHelp("Subject (sub).", valueName: "subject")) var sub: String?
        @Option(help: ArgumentHelp("Issuer (iss).", valueName: "issuer")) var iss: String?
        @Option(help: ArgumentHelp("Audience (aud). For several: --claim 'aud=[\"a\",\"b\"]'.", valueName: "audience")) var aud: String?
        @Option(help: ArgumentHelp("Lifetime, setting exp: 90s, 5m, 1h, 30d, 2w, 1h30m.", valueName: "duration")) var exp: String?

        /// The header members `--header` may not set, and what to use instead.
        static let reservedHeaders: KeyValuePairs<String, String> = [
            "alg": "the algorithm is --alg's",
            "kid": "use --kid",
            "typ": "use --typ",
            "b64": "unencoded payloads (RFC 7797) are not supported",
        ]

        func validate() throws {
            try keyOptions.validate(algorithm: alg)
            if let exp {
                do {
                    _ = try Durations.parse(exp)
                } catch {
                    throw ValidationError("--exp: \(error)")
                }
            }
            if typ.isEmpty { throw ValidationError("--typ needs a value") }
            if payloadFile == "" { throw ValidationError("--payload-file needs a path, or - for standard input") }
            for claim in claims where Self.member(claim) == nil {
                throw ValidationError("--claim takes NAME=VALUE, got \"\(claim)\"")
            }
            var seen: Swift.Set<String> = []
            for header in headers {
                guard let (name, _) = Self.member(header) else {
                    throw ValidationError("--header takes NAME=VALUE, got \"\(header)\"")
                }
                if let why = Self.reservedHeaders.first(where: { $0.key == name })?.value {
                    throw ValidationError("--header \(name)=…: \(name) cannot be set with --header; \(why)")
                }
                guard seen.insert(name).inserted else {
                    throw ValidationError("--header \(name) is given twice")
                }
            }
            // crit must list members this header carries, or the token is malformed (RFC 7515, 4.1.11).
            if let crit = headers.compactMap(Self.member).first(where: { $0.0 == "crit" })?.1 {
                guard case .array(let names) = crit, !names.isEmpty,
                    names.allSatisfy({ $0.stringValue.map(seen.contains) == true && $0.stringValue != "crit" })
                else {
                    throw ValidationError(
                        "--header crit=…: crit must be a non-empty JSON array naming other --header members, such as --header 'crit=[\"exp\"]' --header exp=…"
                    )
                }
            }
        }

        func run() async throws {
            let key = try keyOptions.signingKey(algorithm: alg.algorithm, keyID: kid)
            let now = Date().timeIntervalSince1970.rounded(.down)
            var object = try payloadFile.map(Self.readPayload) ?? [:]
            if object["iat"] == nil { object["iat"] = .number(now) }
            if let sub { object["sub"] = .string(sub) }
            if let iss { object["iss"] = .string(iss) }
            if let aud { object["aud"] = .string(aud) }
            if let exp, let lifetime = try? Durations.parse(exp) { object["exp"] = .number(now + lifetime.rounded()) }
            for claim in claims {
                guard let (name, value) = Self.member(claim) else { continue }
                object[name] = value
            }
            var header: JSONObject = ["typ": .string(typ)]
            for member in headers {
                guard let (name, value) = Self.member(member) else { continue }
                header[name] = value
            }
            do {
                print(try JWT.sign(object, key: key, algorithm: alg.algorithm, extraHeader: header))
            } catch let error as JWTError {
                let keyProblem: Swift.Set<JWTError.Code> = [.algorithmMismatch, .keyUsageNotAllowed, .invalidKey]
                throw fail(error.message, status: keyProblem.contains(error.code) ? ExitStatus.keyProblem : ExitStatus.failure)
            }
        }

        /// `NAME=VALUE` as a JSON member: VALUE as JSON when it parses, else as a string.
        /// Nil without `=` or with an empty name.
        static func member(_ text: String) -> (String, JSONValue)? {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
            let value = String(text[text.index(after: equals)...])
            return (String(text[..<equals]), (try? JSONValue.parse(value)) ?? .string(value))
        }

        /// The JSON object in `path` (`-`: standard input), at most a token's 64 KiB.
        /// Exit 1 when it cannot be read or is not an object.
        static func readPayload(_ path: String) throws -> JSONObject {
            let limit = JWSOptions().maxTokenSize
            let bytes: [UInt8]
            let source = path == "-" ? "standard input" : path
            if path == "-" {
                let input = try StandardInput.read(limit: limit)
                guard !input.exceedsLimit else {
                    throw fail("the payload on standard input is larger than \(limit) bytes (64 KiB), more than a token holds")
                }
                bytes = input.bytes
            } else {
                bytes = try KeyLoader.readFile(path, what: "payload file", limit: limit, status: ExitStatus.failure)
            }
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes: bytes)
            } catch {
                throw fail("payload from \(source): \(error.description)")
            }
            guard case .object(let object) = value else {
                throw fail("payload from \(source): not a JSON object (a JWT's claims are one)")
            }
            return object
        }
    }
}
