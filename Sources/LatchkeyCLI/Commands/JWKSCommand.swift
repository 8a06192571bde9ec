import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeyJSON
import LatchkeyJWT

extension LatchkeyCommand {
    /// `latchkey jwks`: list the keys of a JWKS file.
    struct JWKSCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "jwks",
            abstract: "List the keys of a JWKS (or JWK) file: kid, kty, alg, use, size or curve.",
            discussion: """
                Keys Latchkey cannot verify with (encryption-only curves such as X25519, unknown kty, \
                RSA under 2048 bits, malformed members) are listed after the table as skipped, with the reason.

                Exit status: 0 listed; 2 the file is unreadable or not a JWKS or JWK.
                """)

        @Argument(help: ArgumentHelp("The JWKS file, or - for standard input.", valueName: "file"))
        var file: String

        func run() async throws {
            let entries: [JSONValue]
            if file == "-" {
                let path = "/dev/stdin"
                entries = try Self.entries(KeyLoader.document(at: path), path: "standard input")
            } else {
                entries = try Self.entries(KeyLoader.document(at: file), path: file)
            }
            var rows = [["KID", "KTY", "ALG", "USE", "SIZE/CURVE"]]
            var notes: [String] = []
            for (index, entry) in entries.enumerated() {
                do {
                    guard case .object(let object) = entry else { throw EntryError() }
                    let jwk = try JWK(object: object)
                    let key = try JWTKey(jwk: jwk)
                    rows.append([jwk.keyID ?? "-", jwk.keyType, jwk.algorithm ?? "-", Self.usage(jwk), Self.sizeOrCurve(key)])
                    if jwk.isPrivate {
                        notes.append("key #\(index)\(jwk.keyID.map { " (\($0))" } ?? ""): includes private material; publish only public keys")
                    }
                } catch {
                    notes.append("skipped key #\(index): \(error)")
                }
            }
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            rows = rows.map { $0.map { TerminalText.escape($0) } }
            for (offset, row) in rows.enumerated() {
                let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
                print(offset == 0 ? Colour.bold(line) : line)
            }
            for note in notes { print(TerminalText.escape(note)) }
        }

        /// "2048 bits" for RSA and secrets, the curve for EC and OKP keys.
        private static func sizeOrCurve(_ key: JWTKey) -> String {
            // typeDescription is "RSA 2048", "EC P-256", "Ed25519" or "oct 256".
            let words = key.typeDescription.split(separator: " ", maxSplits: 1).map(String.init)
            guard words.count == 2 else { return key.typeDescription }
            return Int(words[1]) == nil ? words[1] : "\(words[1]) bits"
        }

        /// `use`, or `key_ops` when there is no `use`, or "-".
        private static func usage(_ jwk: JWK) -> String {
            if let use = jwk.use { return use }
            if let ops = jwk.keyOperations { return ops.joined(separator: ",") }
            return "-"
        }

        private struct EntryError: Error, CustomStringConvertible {
            var description: String { "not a JSON object" }
        }

        private static func entries(_ document: JWTKeyFile, path: String) throws -> [JSONValue] {
            guard let entries = document.jwkEntries else { throw fail("\(path): a PEM file, not a JWKS", status: ExitStatus.keyProblem) }
            return entries
        }
    }
}
