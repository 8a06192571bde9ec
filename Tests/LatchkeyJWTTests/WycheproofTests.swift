import Foundation
import LatchkeyJSON
import Testing

@testable import LatchkeyJWT

/// Project Wycheproof's signature vectors (Google; Apache-2.0), run through the path a
/// token takes: a ``JWTKey`` built from the group's public JWK, verifying the vector's
/// message with the JWS algorithm of its curve and hash. The ECDSA files are the IEEE
/// P1363 ones, whose signatures are `r || s` as in a JWS. Every vector must give its
/// expected answer: the edge cases (r or s zero, or the group order, or out of range,
/// truncated, padded, malleated) are the ones a hand-rolled or misused primitive accepts.
///
/// The files, unmodified, are in `Vectors/wycheproof/` (see its README for their source).
@Suite struct WycheproofTests {
    struct File: Sendable, CustomTestStringConvertible {
        let name: String
        let algorithm: JWSAlgorithm
        /// Vectors in the file, as its header counts them.
        let count: Int
        var testDescription: String { "\(algorithm.rawValue) (\(name))" }
    }

    static let files = [
        File(name: "ecdsa_secp256r1_sha256_p1363_test.json", algorithm: .es256, count: 252),
        File(name: "ecdsa_secp384r1_sha384_p1363_test.json", algorithm: .es384, count: 270),
        File(name: "ecdsa_secp521r1_sha512_p1363_test.json", algorithm: .es512, count: 308),
        File(name: "ed25519_test.json", algorithm: .edDSA, count: 150),
    ]

    struct VectorFile: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Group: Decodable {
        let publicKeyJwk: [String: String]
        let tests: [Vector]
    }

    struct Vector: Decodable {
        let tcId: Int
        let comment: String
        let msg: String
        let sig: String
        let result: String
        let flags: [String]
    }

    @Test(arguments: files)
    func everyVectorGivesItsExpectedAnswer(file: File) throws {
        let vectors = try JSONDecoder().decode(VectorFile.self, from: Vectors.data("wycheproof/\(file.name)"))
        var run = 0
        var wrong: [String] = []
        for group in vectors.testGroups {
            var jwk = JSONObject()
            for (name, value) in group.publicKeyJwk where name != "kid" { jwk[name] = .string(value) }
            let key = try JWTKey(jwk: JWK(object: jwk))
            #expect(key.accepts(file.algorithm), "the group's key does not accept \(file.algorithm.rawValue)")
            for vector in group.tests {
                run += 1
                let expected = vector.result == "valid"
                #expect(vector.result == "valid" || vector.result == "invalid", "tcId \(vector.tcId): result \(vector.result)")
                let signature = [UInt8](hex: vector.sig)
                let message = [UInt8](hex: vector.msg)
                let verified = try signature.withUnsafeBytes { signature in
                    try message.withUnsafeBytes { message in
                        try key.verify(file.algorithm, signature: signature, signingInput: message)
                    }
                }
                if verified != expected {
                    wrong.append("tcId \(vector.tcId) (\(vector.comment); \(vector.flags.joined(separator: ","))): expected \(vector.result)")
                }
            }
        }
        #expect(run == file.count && run == vectors.numberOfTests)
        #expect(wrong.isEmpty, "\(wrong.count) of \(run) vectors answered wrongly:\n\(wrong.joined(separator: "\n"))")
    }
}
