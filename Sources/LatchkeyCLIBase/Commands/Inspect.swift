package import ArgumentParser
package import FoundationEssentials
import Glibc
package import LatchkeyJSON
package import LatchkeyJWT

/// `latchkey inspect`: decode a token without verifying it.
package struct InspectCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode a JWT or JWS without verifying it: header, claims, times and warnings.",
        discussion: """
            Nothing is verified: use `latchkey verify` to trust a token. Times are shown in UTC \
            with their age ("expires in 4m 12s", "expired 3h ago"). Warnings cover alg "none", \
            a missing or past exp, a future nbf or iat, unknown crit names and header members \
            that point at keys (jku, x5u, jwk, x5c), which Latchkey never fetches.

            With --json, one line: {"header":{...},"payload":...,"signature":"<base64url>","warnings":[...]}; \
            the payload is the claims object, or the payload as text when it is not JSON.

            Exit status: 0 when the token could be decoded (warnings or not), 1 when it is malformed.
            """)

    @OptionGroup var input: TokenInput

    @Flag(help: "Print one JSON object on one line instead of the report.")
    var json = false

    package func run() throws {
        let text = try input.read()
        let jws: CompactJWS
        do { jws = try CompactJWS(text) } catch let error as JWTError { throw fail(error.message) }
        let now = Date()
        let payload = Self.payloadValue(jws.payload)
        let claims = payload.objectValue
        let warnings = Self.warnings(
            header: jws.header, claims: claims, payloadProblem: claims == nil ? Self.payloadProblem(jws.payload) : nil, now: now)

        if json {
            let object: JSONObject = [
                "header": .object(jws.header.object),
                "payload": payload,
                "signature": .string(Base64URL.encode(jws.signature)),
                "warnings": .array(warnings.map { .string($0) }),
            ]
            print(JSONValue.object(object).jsonText)
            return
        }

        print(Colour.bold("Header"))
        print(TerminalText.escape(JSONValue.object(jws.header.object).prettyJSONText, keepingNewlines: true))
        print(Colour.bold(claims == nil ? "Payload" : "Claims"))
        switch payload {
        case .string(let text) where claims == nil: print(TerminalText.escape(text))
        default: print(TerminalText.escape(payload.prettyJSONText, keepingNewlines: true))
        }
        if let claims {
            let times = Self.timeLines(claims, now: now)
            if !times.isEmpty {
                print(Colour.bold("Times (UTC)"))
                times.forEach { print($0) }
            }
        }
        print(Colour.bold("Signature"))
        let algorithm = TerminalText.escape(jws.header.algorithmName)
        if jws.signature.isEmpty {
            print("  \(algorithm), " + Colour.yellow("no signature"))
        } else {
            print("  \(algorithm), \(jws.signature.count) bytes, " + Colour.yellow("not verified"))
        }
        if !warnings.isEmpty {
            print(Colour.bold("Warnings"))
            for warning in warnings { print("  " + Colour.yellow("! " + TerminalText.escape(warning))) }
        }
    }

    /// The payload as JSON when it is JSON, else as text when it is UTF-8, else as base64url.
    package static func payloadValue(_ bytes: [UInt8]) -> JSONValue {
        if let text = String(validating: bytes, as: UTF8.self) {
            if let value = try? JSONValue.parse(text) { return value }
            return .string(text)
        }
        return .string(Base64URL.encode(bytes))
    }

    /// Why the payload is not a claims object, for the warning.
    package static func payloadProblem(_ bytes: [UInt8]) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { return "binary, shown as base64url" }
        let trimmed = text.trimming(while: \.isWhitespace)
        guard trimmed.hasPrefix("{") else { return "not a JSON object" }
        do {
            _ = try JSONValue.parse(text)
            return "not a JSON object"
        } catch {
            return error.description
        }
    }

    /// "  exp  2026-11-22T18:27:37Z  (expires in 4m 59s)" for each of iat, nbf, exp present.
    package static func timeLines(_ claims: JSONObject, now: Date) -> [String] {
        var lines: [String] = []
        for name in ["iat", "nbf", "exp"] {
            guard let seconds = claims[name]?.numberValue else { continue }
            let date = Date(timeIntervalSince1970: seconds)
            let phrase: String
            switch name {
            case "iat": phrase = "issued \(Durations.relative(date, to: now))"
            case "nbf": phrase = date > now ? "valid \(Durations.relative(date, to: now))" : "valid since \(Durations.relative(date, to: now))"
            default:
                let text = Durations.expiry(date, now: now)
                phrase = date > now ? Colour.green(text) : Colour.red(text)
            }
            lines.append("  \(name)  \(Durations.utc(date))  (\(phrase))")
        }
        return lines
    }

    /// What a reader should be told before trusting this token.
    package static func warnings(header: JWSHeader, claims: JSONObject?, payloadProblem: String?, now: Date) -> [String] {
        var warnings: [String] = []
        if header.algorithmName == "none" {
            warnings.append("alg is \"none\": the token is unsigned and verification refuses it")
        } else if header.algorithm == nil {
            warnings.append("alg \"\(header.algorithmName)\" is not an algorithm Latchkey verifies")
        }
        if let crit = header["crit"] {
            if header.critical.isEmpty || crit.arrayValue?.count != header.critical.count {
                warnings.append("crit is not a non-empty array of names: verification refuses the token")
            } else {
                let names = header.critical.map { "\"\($0)\"" }.joined(separator: ", ")
                warnings.append("crit lists \(names), which Latchkey does not understand: verification refuses the token")
            }
        }
        for name in ["jku", "x5u", "jwk", "x5c"] where header[name] != nil {
            warnings.append("the header carries \(name); Latchkey never fetches or trusts keys named by a token")
        }
        guard let claims else {
            let detail = payloadProblem.map { $0 == "not a JSON object" ? "" : " (\($0))" } ?? ""
            warnings.append("the payload is not a JSON object\(detail): a JWS, not a JWT (check it with verify --jws)")
            return warnings
        }
        for name in ["exp", "nbf", "iat"] {
            if let value = claims[name], value.numberValue == nil {
                warnings.append("\(name) is not a number (seconds since 1970): verification refuses the token")
            }
        }
        if claims["exp"] == nil {
            warnings.append("no exp claim: the token never expires")
        } else if let exp = claims["exp"]?.numberValue.map(Date.init(timeIntervalSince1970:)), exp <= now {
            warnings.append("\(Durations.expiry(exp, now: now)) (at \(Durations.utc(exp)))")
        }
        if let nbf = claims["nbf"]?.numberValue.map(Date.init(timeIntervalSince1970:)), nbf > now {
            warnings.append("not valid yet: nbf is \(Durations.relative(nbf, to: now)) (at \(Durations.utc(nbf)))")
        }
        if let iat = claims["iat"]?.numberValue.map(Date.init(timeIntervalSince1970:)), iat > now.addingTimeInterval(60) {
            warnings.append("issued in the future: iat is \(Durations.relative(iat, to: now))")
        }
        return warnings
    }
}
