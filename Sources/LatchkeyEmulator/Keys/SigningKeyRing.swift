import LatchkeyJWT

/// One provider's RS256 signing keys: the current one signs, and keys it replaced stay
/// published in the JWKS for a while (the overlap real providers give, so tokens signed
/// just before a rotation still verify).
actor SigningKeyRing {
    private var current: JWTKey
    private var previous: [JWTKey] = []
    private let prefix: String
    private var generation = 1

    /// A ring with a freshly generated key whose `kid` starts with `prefix`.
    init(prefix: String) throws {
        self.prefix = prefix
        current = try Self.generate(prefix: prefix, generation: 1)
    }

    /// The key tokens are signed with now.
    var signingKey: JWTKey { current }

    /// The published key set: the current key first, then those still in their overlap.
    var keySet: JWKSet { JWKSet(keys: ([current] + previous).map(\.publicKey)) }

    /// The `kid`s published, current first.
    var keyIDs: [String] { ([current] + previous).compactMap(\.keyID) }

    /// Replaces the signing key with a new one and returns its `kid`; the newest
    /// `keepingPrevious` retired keys stay published.
    func rotate(keepingPrevious: Int = 1) throws -> String {
        generation += 1
        let key = try Self.generate(prefix: prefix, generation: generation)
        previous.insert(current, at: 0)
        previous = Array(previous.prefix(max(0, keepingPrevious)))
        current = key
        return key.keyID ?? ""
    }

    private static func generate(prefix: String, generation: Int) throws -> JWTKey {
        try JWTKey.generate(for: .rs256, keyID: "\(prefix)-\(generation)-\(OpaqueToken.make(bytes: 6))")
    }
}
