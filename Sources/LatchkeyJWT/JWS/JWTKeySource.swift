/// Where verification finds its key: a single `JWTKey` or a `JWKSet`.
public protocol JWTKeySource: Sendable {
    /// The keys that may verify a token with this header, best first. Throws
    /// `keyNotFound` when a `kid` names no key.
    func candidateKeys(for header: JWSHeader) throws -> [JWTKey]
}

extension JWTKey: JWTKeySource {
    /// A single key is always the candidate; whether it accepts the token's `alg` is
    /// checked during verification.
    public func candidateKeys(for header: JWSHeader) throws -> [JWTKey] { [self] }
}
