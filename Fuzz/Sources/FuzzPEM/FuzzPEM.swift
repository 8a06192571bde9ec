// PEM keys: any text either fails with an error or yields a key whose own PEM and JWK
// read back as a key again.
internal import FuzzSupport
internal import LatchkeyJWT

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = Fuzz.text(start, count)
    guard let key = try? JWTKey(pem: text) else { return 0 }
    _ = key.description
    _ = key.typeDescription
    guard let publicPEM = (try? key.pem()) ?? nil, (try? JWTKey(pem: publicPEM)) != nil else {
        Fuzz.fail("a parsed PEM key's public PEM does not read back")
    }
    if key.canSign {
        guard let privatePEM = (try? key.pem(includingPrivate: true)) ?? nil, (try? JWTKey(pem: privatePEM)) != nil else {
            Fuzz.fail("a parsed PEM private key's PKCS#8 PEM does not read back")
        }
    }
    guard (try? JWTKey(jwk: key.jwk(includingPrivate: true))) != nil else {
        Fuzz.fail("a parsed PEM key's JWK does not read back")
    }
    return 0
}
