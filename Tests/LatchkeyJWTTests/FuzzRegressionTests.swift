import Foundation
import LatchkeyJWT
import Testing

/// Inputs the libFuzzer targets (Fuzz/) found, each kept as it was found; the same
/// files are replayed by `make -C Fuzz regressions` from Fuzz/Regressions/.
@Suite struct FuzzRegressionTests {
    // MARK: FuzzPEM

    /// Fuzz/Regressions/FuzzPEM/pkcs8-ec-public-point-mismatch.pem: the vector
    /// ec-p256-pkcs8.pem with one character of the private scalar changed, so the public
    /// point stored beside it no longer matches. It loaded, and the key signed tokens
    /// its own public key (and its JWK) could never verify.
    static let mismatchedPKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHPcFGMPkmsGx7af9
        ZIvnml/U/T8N2KoACFi8lusoS0ShRANCAAT6gKqzUDl3z9+NYf9lrBdBDxA6ILzE
        aNQ/nslAFIEPbxfPj/zGTSMd3qf6PmrHQ8pW57wslENP+RaH3mo7M9ob
        -----END PRIVATE KEY-----

        """

    @Test func privateKeyPEMWhosePublicPointDoesNotMatchIsRefused() throws {
        let error = expectJWTError(.invalidKey) { try JWTKey(pem: Self.mismatchedPKCS8) }
        #expect(error?.message.contains("does not match") == true)
        // The unaltered vector still loads, signs and verifies with its public half.
        let key = try JWTKey(pem: Vectors.text("ec-p256-pkcs8.pem"))
        _ = try JWT.verify(JWT.sign(["sub": "x"], key: key), keys: key.publicKey)
    }

    @Test func rsaPrivateJWKWhoseFactorsDoNotMatchIsRefused() throws {
        // The CRT values of one RSA key with the modulus of another: OpenSSL builds it,
        // and it signs with the factors what the modulus never verifies.
        let one = try TestKeys.pair(.rs256).jwk(includingPrivate: true).object
        var mixed = try JWTKey.generate(for: .rs256).jwk(includingPrivate: true).object
        for name in ["d", "p", "q", "dp", "dq", "qi"] { mixed[name] = one[name] }
        expectJWTError(.invalidKey) { try JWTKey(jwk: JWK(object: mixed)) }
    }
}
