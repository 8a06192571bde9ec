public import LatchkeyJWT

/// Verifies bearer JWTs: the signature with the issuer's keys through a ``JWKSCache``
/// (the toolkit's one home for fetching keys: an unknown `kid` refetches once, rate
/// limited, so a rotated key verifies), then the claims with ``JWTValidationOptions``
/// (the toolkit's one home for claim checks: issuers, audiences, `exp`/`nbf`/`iat`
/// with leeway, algorithms), then the verifier's own ``check``, if any.
///
/// Ready-made: ``stytch(projectID:b2b:organizationID:customDomain:baseURL:leeway:transport:clock:cacheOptions:)``,
/// ``auth0(domain:audience:baseURL:leeway:transport:clock:cacheOptions:)`` and
/// ``discovering(issuer:audience:discoveryURL:algorithms:leeway:transport:clock:cacheOptions:)``.
/// Thread-safe; verification runs on the caller's task, on every core at once.
public struct BearerTokenVerifier: Sendable {
    /// The issuer's keys.
    public let keys: JWKSCache
    /// What the claims must satisfy (issuers, audiences, leeway, algorithms, clock).
    public var options: JWTValidationOptions
    /// A further check on a token whose signature and claims passed (a Stytch B2B
    /// organization, say): the reason it fails (logged, never shown to the client), or
    /// `nil` when the token passes.
    public var check: (@Sendable (VerifiedToken) -> String?)?

    /// A verifier over `keys` and `options`.
    ///
    /// Give `options` an issuer or issuers and an audience: without them any token the
    /// keys signed passes, whoever it was made for.
    public init(keys: JWKSCache, options: JWTValidationOptions, check: (@Sendable (VerifiedToken) -> String?)? = nil) {
        self.keys = keys
        self.options = options
        self.check = check
    }

    /// Verifies `token`.
    ///
    /// - Throws: ``BearerRefusal`` with ``BearerRefusal/Code/invalidToken`` for a token
    ///   that fails any check (its ``BearerRefusal/reason`` is the JWT error's code), or
    ///   ``BearerRefusal/Code/unavailable`` when the keys cannot be fetched at all.
    public func verify(_ token: String) async throws(BearerRefusal) -> VerifiedToken {
        let verified: VerifiedToken
        do {
            verified = VerifiedToken(try await keys.verify(token, options: options))
        } catch let error as JWTError {
            throw BearerRefusal(.invalidToken, reason: "\(error.code)")
        } catch {
            // The key set could not be fetched and none was cached: the token may be fine.
            throw BearerRefusal(.unavailable, reason: "the issuer's keys could not be fetched")
        }
        if let check, let reason = check(verified) { throw BearerRefusal(.invalidToken, reason: reason) }
        return verified
    }
}
