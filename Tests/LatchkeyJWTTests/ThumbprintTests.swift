import LatchkeyJWT
import Testing

/// JWK thumbprints (RFC 7638), checked against the RFCs' own values.
@Suite struct ThumbprintTests {
    /// RFC 7638 §3.1's RSA key, with the `alg` and `kid` the example carries.
    static let rfc7638Key =
        #"{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}"#

    /// RFC 9449 §4.2's proof key, whose `jkt` §6.1 gives.
    static let rfc9449Key =
        #"{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"}"#

    @Test func rfc7638ExampleVector() throws {
        #expect(try JWK(json: Self.rfc7638Key).thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func rfc9449ExampleKeysJKT() throws {
        #expect(try JWK(json: Self.rfc9449Key).thumbprint() == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test func optionalAndPrivateMembersDoNotChangeIt() throws {
        let key = try JWTKey.generate(for: .es256, keyID: "k1")
        let full = key.jwk(includingPrivate: true)
        #expect(full.isPrivate)
        #expect(try full.thumbprint() == key.jwk().thumbprint())
        #expect(try full.thumbprint() == key.publicKey.jwk().thumbprint())
        #expect(try JWTKey.generate(for: .es256).jwk().thumbprint() != full.thumbprint())
    }

    @Test func everyKeyTypeHasOne() throws {
        for algorithm in [JWSAlgorithm.rs256, .es384, .edDSA, .hs256] {
            let thumbprint = try JWTKey.generate(for: algorithm).jwk(includingPrivate: true).thumbprint()
            #expect(thumbprint.count == 43, "base64url of 32 bytes")
        }
    }

    @Test func missingMemberOrUnknownTypeIsRefused() throws {
        expectJWTError(.invalidKey) { try JWK(json: #"{"kty":"EC","crv":"P-256","x":"AAAA"}"#).thumbprint() }
        expectJWTError(.invalidKey) { try JWK(json: #"{"kty":"EC","crv":"P-256","x":"AAAA","y":7}"#).thumbprint() }
        expectJWTError(.invalidKey) { try JWK(json: #"{"kty":"XYZ","x":"AAAA"}"#).thumbprint() }
    }
}
