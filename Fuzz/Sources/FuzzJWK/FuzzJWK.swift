// JWK and JWKS documents: parsing either fails with an error or yields keys whose
// JWK (public and private) reads back as a key again.
internal import FuzzSupport
internal import LatchkeyJWT

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Fuzz.bytes(start, count)
    let text = String(decoding: input, as: UTF8.self)
    if let jwk = try? JWK(json: text) {
        _ = jwk.description
        _ = jwk.publicJWK.jsonText
        if let key = try? JWTKey(jwk: jwk) { checkRoundTrip(key) }
    }
    if let set = try? JWKSet(json: input) {
        for key in set.keys { checkRoundTrip(key) }
        _ = set.skipped.map(\.reason)
        guard (try? JWKSet(json: set.jsonText(includingPrivate: true)))?.keys.count == set.keys.count else {
            Fuzz.fail("a key set's own JSON does not read back with the same keys")
        }
    }
    return 0
}

/// A key Latchkey built must describe itself, and its JWKs must build the key again.
private func checkRoundTrip(_ key: JWTKey) {
    _ = key.description
    _ = try? key.pem()
    guard (try? JWTKey(jwk: key.jwk(includingPrivate: true))) != nil else { Fuzz.fail("a key's private JWK does not read back") }
    guard (try? JWTKey(jwk: key.jwk())) != nil || key.isSecret else { Fuzz.fail("a key's public JWK does not read back") }
}
