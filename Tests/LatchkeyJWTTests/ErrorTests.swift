import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Testing

/// Errors keep their cause and read the same through `localizedDescription`.
@Suite struct ErrorTests {
    @Test func aMalformedHeaderKeepsTheJSONError() throws {
        let token = Base64URL.encode(Array(#"{"alg":"HS256","alg":"none"}"#.utf8)) + ".e30." + Base64URL.encode([1])
        let error = expectJWTError(.malformed) { try JWT.decode(token) }
        let json = try #require(error?.underlying as? JSONError)
        #expect(json.code == .duplicateMember)
        #expect(error?.message.contains(json.description) == true)
    }

    @Test func aKeyTheCryptoLayerRefusesKeepsItsError() throws {
        let error = expectJWTError(.invalidKey) { try JWTKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        let underlying = try #require(error?.underlying)
        #expect(!(underlying is JWTError))
        #expect(error?.message.contains("\(underlying)") == true)
    }

    @Test func aKeySetThatIsNotJSONKeepsTheJSONError() throws {
        let error = expectJWTError(.invalidKey) { try JWKSet(json: #"{"keys":[}"#) }
        #expect((error?.underlying as? JSONError)?.code == .syntax)
    }

    @Test func localizedDescriptionIsTheDescription() throws {
        let errors: [JWTError] = [
            try #require(expectJWTError(.malformed) { try JWT.decode("a.b") }),
            try #require(expectJWTError(.invalidKey) { try JWTKey(pem: "not a pem") }),
            try #require(expectJWTError(.invalidKey) { try JWTKey.hmac([1, 2, 3]) }),
        ]
        for error in errors {
            #expect(error.localizedDescription == error.description)
            #expect((error as any Error).localizedDescription == error.description)
        }
    }

    @Test func equalityIgnoresTheUnderlyingError() throws {
        let a = try #require(expectJWTError(.invalidKey) { try JWTKey(pem: "not a pem") })
        let b = try #require(expectJWTError(.invalidKey) { try JWTKey(pem: "not a pem") })
        #expect(a == b)
    }
}
