import ArgumentParser
import Foundation
import LatchkeyJWT

extension Latchkey {
    /// `latchkey inspect`: decode a token without verifying it.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a JWT/JWS without verifying it: header, claims, times and warnings.")

        @Argument(help: "The token, or `-` (default) to read standard input. A `Bearer ` prefix is ignored.")
        var token: String?

        @Flag(help: "Print one JSON object: {header, payload, signature, warnings}.")
        var json = false

        func run() async throws {
            let text = try TokenInput.read(token)
            let jws: CompactJWS
            do { jws = try CompactJWS(text) } catch let error as JWTError { throw fail(error.message) }
            let claims = try? JWT.decode(text).claims
            let now = Date()
            var warnings: [String] = []
            if jws.header.algorithmName == "none" { warnings.append("alg is \"none\": the token is not signed") }
            if !jws.header.critical.isEmpty {
                warnings.append("crit lists \(jws.header.critical.joined(separator: ", ")), which verification will refuse unless understood")
            }
            if let claims {
                if claims.object["exp"] == nil { warnings.append("no exp claim: the token never expires") }
                if let exp = claims.expiresAt, exp <= now { warnings.append("expired \(humanDuration(now.timeIntervalSince(exp))) ago") }
                if let nbf = claims.notBefore, nbf > now { warnings.append("not valid for another \(humanDuration(nbf.timeIntervalSince(now))) (nbf)") }
            } else {
                warnings.append("the payload is not a JSON object (a JWS, not a JWT)")
            }
            let payload: JSONValue = claims.map { .object($0.object) } ?? .string(String(decoding: jws.payload, as: UTF8.self))
            if json {
                let object: JSONObject = [
                    "header": .object(jws.header.object), "payload": payload,
                    "signature": .string(Base64URL.encode(jws.signature)),
                    "warnings": .array(warnings.map { .string($0) }),
                ]
                print(JSONValue.object(object).jsonText)
                return
            }
            print(Terminal.bold("Header"))
            print(JSONValue.object(jws.header.object).prettyJSONText)
            print(Terminal.bold(claims == nil ? "Payload" : "Claims"))
            print(claims == nil ? String(decoding: jws.payload, as: UTF8.self) : payload.prettyJSONText)
            if let claims {
                var lines: [String] = []
                if let iat = claims.issuedAt { lines.append("  iat  \(utcString(iat))  (issued \(relative(iat, now)))") }
                if let nbf = claims.notBefore { lines.append("  nbf  \(utcString(nbf))  (\(nbf > now ? "valid in \(humanDuration(nbf.timeIntervalSince(now)))" : "valid since \(humanDuration(now.timeIntervalSince(nbf))) ago"))") }
                if let exp = claims.expiresAt {
                    let phrase = exp > now ? "expires in \(humanDuration(exp.timeIntervalSince(now)))" : "expired \(humanDuration(now.timeIntervalSince(exp))) ago"
                    lines.append("  exp  \(utcString(exp))  (\(exp > now ? Terminal.green(phrase) : Terminal.red(phrase)))")
                }
                if !lines.isEmpty {
                    print(Terminal.bold("Times (UTC)"))
                    lines.forEach { print($0) }
                }
            }
            print(Terminal.bold("Signature") + "  \(jws.signature.count) bytes, not verified")
            if !warnings.isEmpty {
                print(Terminal.bold("Warnings"))
                for warning in warnings { print("  " + Terminal.yellow("! " + warning)) }
            }
        }

        private func relative(_ date: Date, _ now: Date) -> String {
            date > now ? "in \(humanDuration(date.timeIntervalSince(now)))" : "\(humanDuration(now.timeIntervalSince(date))) ago"
        }
    }
}
