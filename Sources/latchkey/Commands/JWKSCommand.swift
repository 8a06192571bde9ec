import ArgumentParser
import Foundation
import LatchkeyJWT

extension Latchkey {
    /// `latchkey jwks`: list the keys of a JWKS file.
    struct JWKSCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "jwks", abstract: "List the keys of a JWKS file.")

        @Argument(help: "The JWKS file.")
        var file: String

        func run() async throws {
            let text = try KeyFile.readText(file)
            let set: JWKSet
            do { set = try JWKSet(json: text) } catch let error as JWTError { throw fail("\(file): \(error.message)", code: keyErrorExitCode) }
            var rows = [["KID", "KTY", "ALG", "USE", "SIZE/CURVE"]]
            for key in set.keys {
                let jwk = key.jwk()
                let size = key.typeDescription.split(separator: " ").dropFirst().joined(separator: " ")
                rows.append([key.keyID ?? "-", jwk.keyType, key.algorithm?.rawValue ?? "-", key.canVerify ? "sig" : "enc/none", size.isEmpty ? "-" : size])
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
            for (index, reason) in set.skipped { print("skipped key #\(index): \(reason)") }
        }
    }
}
