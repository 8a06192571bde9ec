// Compact JWS/JWT parsing and verification, with a forgery oracle.
//
// The keys are the test vectors' (RFC 7515, RFC 7520 and the pyca interop tokens) plus
// one HMAC key whose secret is drawn at random when the run starts, so the fuzzer
// cannot know it. The only messages the keys' holders ever signed are the vectors'
// signing inputs: a token that verifies must carry one of them under the key that
// signed it. Anything else verifying is a forgery, and the run stops. (A second
// encoding of the same signature, or ECDSA's (r, n − s), still signs the same message:
// malleability, not forgery; SECURITY.md says what it means for replay.)
internal import Foundation
internal import FuzzSupport
internal import LatchkeyJSON
internal import LatchkeyJWT

/// The keys, the set of them, and what each key's holder signed.
struct Oracle {
    /// Every key, by the `kid` it carries in the set.
    let keys: [String: JWTKey]
    let keySet: JWKSet
    /// Signing input (`header.payload`) → the kids of the keys that signed it.
    let issued: [String: Set<String>]
    /// The key no token can legitimately verify under.
    static let unknownSecretKeyID = "fuzz-unknown-secret"

    static let shared = Oracle()

    private init() {
        var keys: [String: JWTKey] = [:]
        var issued: [String: Set<String>] = [:]
        func record(_ token: String, _ kid: String) {
            guard let dot = token.lastIndex(of: ".") else { Fuzz.fail("vector token without dots") }
            issued[String(token[..<dot]), default: []].insert(kid)
        }
        let vectorsDirectory = "Tests/LatchkeyJWTTests/Vectors/"
        for file in ["rfc7515.json", "rfc7520.json"] {
            guard case .array(let vectors)? = try? JSONValue.parse(bytes: Array(Fuzz.repositoryFile(vectorsDirectory + file))) else {
                Fuzz.fail("cannot parse \(file)")
            }
            for vector in vectors {
                guard let name = vector["name"]?.stringValue, let alg = vector["alg"]?.stringValue,
                    let token = vector["token"]?.stringValue, var jwk = vector["jwk"]?.objectValue
                else { continue }  // the unsecured example has no key
                // Every key gets a distinct kid and its vector's alg, so a set can find it
                // both by kid and (for tokens without one) by alg.
                let kid = jwk["kid"]?.stringValue ?? name
                jwk["kid"] = .string(kid)
                jwk["alg"] = .string(alg)
                guard let key = try? JWTKey(jwk: JWK(object: jwk)) else { Fuzz.fail("cannot build the key of \(name)") }
                keys[kid] = key
                record(token, kid)
            }
        }
        guard case .object(let interop)? = try? JSONValue.parse(bytes: Array(Fuzz.repositoryFile(vectorsDirectory + "interop-signed.json"))),
            let tokens = interop["tokens"]?.arrayValue
        else { Fuzz.fail("cannot parse interop-signed.json") }
        for vector in tokens {
            guard let name = vector["name"]?.stringValue, let alg = vector["alg"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)),
                let file = vector["publicKeyFile"]?.stringValue, let token = vector["token"]?.stringValue,
                let key = try? JWTKey(
                    pem: String(decoding: Fuzz.repositoryFile(vectorsDirectory + file), as: UTF8.self),
                    algorithm: alg, keyID: name)
            else { Fuzz.fail("cannot read interop vector \(vector)") }
            keys[name] = key
            record(token, name)
        }
        var secret = SystemRandomNumberGenerator()
        let unknown = (0..<64).map { _ in UInt8.random(in: .min ... .max, using: &secret) }
        guard let unknownKey = try? JWTKey.hmac(unknown, algorithm: .hs256, keyID: Self.unknownSecretKeyID) else {
            Fuzz.fail("cannot build the unknown-secret key")
        }
        keys[Self.unknownSecretKeyID] = unknownKey
        self.keys = keys
        self.issued = issued
        self.keySet = JWKSet(keys: keys.keys.sorted().map { keys[$0]! })
    }

    /// Stops the run unless `jws`, which verified under `key`, was signed by that key's holder.
    func check(_ jws: CompactJWS, verifiedWith key: JWTKey?, path: String) {
        guard let key else {
            guard jws.header.algorithmName == "none", jws.signature.isEmpty else {
                Fuzz.fail("\(path): a token with alg \"\(jws.header.algorithmName)\" passed as unsecured")
            }
            return
        }
        let signingInput = String(decoding: jws.signingInput, as: UTF8.self)
        guard let kid = key.keyID, kid != Self.unknownSecretKeyID, issued[signingInput]?.contains(kid) == true else {
            Fuzz.fail("\(path): FORGERY: \(signingInput.prefix(300)) verified under \(key)")
        }
    }
}

private let fixedNow = Date(timeIntervalSince1970: 1_300_819_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let oracle = Oracle.shared
    let token = Fuzz.text(start, count)

    // Decoding without verification: everything readable is read.
    if let jwt = try? JWT.decode(token) {
        _ = (
            jwt.claims.issuer, jwt.claims.subject, jwt.claims.audience, jwt.claims.expiresAt,
            jwt.claims.notBefore, jwt.claims.issuedAt, jwt.claims.jwtID, jwt.claims.payload, jwt.signature
        )
        _ = try? jwt.claims.validate(JWTValidationOptions(issuer: "joe", audience: "fuzz", maxAge: 3600, now: { fixedNow }))
    }
    guard let jws = try? CompactJWS(token) else { return 0 }
    _ = (jws.header.keyID, jws.header.type, jws.header.contentType, jws.header.critical, jws.payload)

    // Through the key set (kid lookup, or alg match), with strict and lenient options.
    do { oracle.check(jws, verifiedWith: try jws.verify(with: oracle.keySet), path: "set") } catch {}
    let lenient = JWSOptions(allowsUnsecured: true, understoodCriticalHeaders: ["b64", "exp"])
    do { oracle.check(jws, verifiedWith: try jws.verify(with: oracle.keySet, options: lenient), path: "lenient set") } catch {}
    // Every key on its own, whatever the kid says.
    for (_, key) in oracle.keys {
        do { oracle.check(jws, verifiedWith: try jws.verify(with: key), path: "single key") } catch {}
    }
    // Whole JWTs, claims included, at a time when the RFC examples are still valid.
    let options = JWTValidationOptions(leeway: 0, now: { fixedNow })
    if (try? JWT.verify(token, keys: oracle.keySet, options: options)) != nil,
        (try? jws.verify(with: oracle.keySet)) == nil
    {
        Fuzz.fail("JWT.verify accepted a token its JWS does not verify")
    }
    return 0
}
