import LatchkeyJSON

/// A JSON Web Key Set (RFC 7517 §5), with its keys parsed once and indexed by `kid`.
///
/// Keys Latchkey cannot use for signatures (encryption keys, unknown `kty`, curves
/// such as X25519) are skipped, not fatal: real key sets mix them in. `skipped` says
/// which and why.
public struct JWKSet: Sendable, JWTKeySource {
    /// The usable keys, in document order.
    public let keys: [JWTKey]
    /// Keys left out, by position in the document, with the reason.
    public let skipped: [(index: Int, reason: String)]
    /// Keys by `kid`, compared by UTF-8 bytes: a `[String: …]` would find a key for any
    /// canonically equivalent `kid` ("caf\u{E9}" for "cafe\u{301}").
    private let indexByID: [CodeUnitString: [Int]]

    /// A set of already-built keys.
    public init(keys: [JWTKey]) { self.init(keys: keys, skipped: []) }

    /// Parses a JWKS document (`{"keys": [...]}`).
    public init(json: some Sequence<UInt8>) throws {
        let value: JSONValue
        do throws(JSONError) { value = try JSONParser.parse(Array(json), names: InternedNames.claims) } catch {
            throw JWTError.invalidKey("the JWKS is not valid JSON (\(error.reason) at byte \(error.offset))", underlying: error)
        }
        guard let entries = value["keys"]?.arrayValue else { throw JWTError.invalidKey("a JWKS must be an object with a \"keys\" array") }
        var keys: [JWTKey] = []
        var skipped: [(Int, String)] = []
        for (offset, entry) in entries.enumerated() {
            do {
                guard case .object(let object) = entry else { throw JWTError.invalidKey("not a JSON object") }
                keys.append(try JWTKey(jwk: JWK(object: object)))
            } catch {
                skipped.append((offset, "\(error)"))
            }
        }
        self.init(keys: keys, skipped: skipped)
    }

    /// Parses a JWKS document from text.
    public init(json: String) throws { try self.init(json: Array(json.utf8)) }

    private init(keys: [JWTKey], skipped: [(Int, String)]) {
        self.keys = keys
        self.skipped = skipped.map { (index: $0.0, reason: $0.1) }
        var index: [CodeUnitString: [Int]] = [:]
        for (offset, key) in keys.enumerated() { if let kid = key.keyID { index[CodeUnitString(kid), default: []].append(offset) } }
        self.indexByID = index
    }

    /// The keys with this `kid`.
    public func keys(withID kid: String) -> [JWTKey] { indexByID[CodeUnitString(kid)]?.map { keys[$0] } ?? [] }

    /// Whether the set has a key with this `kid`.
    public func contains(keyID kid: String) -> Bool { indexByID[CodeUnitString(kid)] != nil }

    /// With a `kid`: the keys bearing it, or `keyNotFound`. Without one: only the keys
    /// whose `alg` equals the token's (a key that names no algorithm is never guessed).
    public func candidateKeys(for header: JWSHeader) throws -> [JWTKey] {
        if let kid = header.keyID {
            guard let indices = indexByID[CodeUnitString(kid)] else { throw JWTError(.keyNotFound, "no key with kid \"\(kid)\" in the key set") }
            return indices.map { keys[$0] }
        }
        let matching = keys.filter { key in key.algorithm.map { sameCodeUnits($0.rawValue, header.algorithmName) } ?? false }
        guard !matching.isEmpty else {
            throw JWTError(.keyNotFound, "the token has no kid and no key in the set declares alg \(header.algorithmName)")
        }
        return matching
    }

    /// The set as JWKS JSON (public members only unless `includingPrivate`).
    public func jsonText(includingPrivate: Bool = false) -> String {
        JSONValue.object(["keys": .array(keys.map { .object($0.jwk(includingPrivate: includingPrivate).object) })]).jsonText
    }
}
