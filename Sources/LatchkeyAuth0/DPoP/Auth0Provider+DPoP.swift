public import Latchkey

extension Auth0Provider {
    /// A DPoP-bound session whose key pair is gone (a logout in another process, a store
    /// reset): Auth0 accepts its tokens with proofs of that key only, so no renewal can
    /// succeed — the session ends, as Auth0.swift's `dpopKeyMissing` clears credentials.
    static let missingDPoPKey = AuthError(
        .unrecoverable, "the DPoP key pair this session is bound to is gone; log in again",
        providerCode: "dpop_key_missing")

    /// Whether `tokens` are DPoP-bound (`token_type` `DPoP`), so every use needs a proof.
    static func isDPoPBound(_ tokens: SessionTokens) -> Bool {
        tokens.attributes["token_type"]?.lowercased() == "dpop"
    }

    /// Reads the DPoP key pair again before a renewal of a DPoP-bound session (outside the
    /// store's lock; another process may have replaced it).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/unrecoverable`` when the key pair is gone;
    ///   ``/Latchkey/AuthError/Code/storage`` when it cannot be read (the session is kept).
    public func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation {
        guard let dpop, Self.isDPoPBound(current.tokens) else { return RenewalPreparation() }
        guard try await dpop.reloadKey() != nil else { throw Self.missingDPoPKey }
        return RenewalPreparation()
    }

    /// Authorizes an app request: a DPoP-bound token as `Authorization: DPoP` with a fresh
    /// proof for this request (`ath` included), any other as `Authorization: Bearer`.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/unrecoverable`` when the token is DPoP-bound and
    ///   the key pair is gone.
    public func prepare(_ request: TransportRequest, with tokens: SessionTokens) async throws -> TransportRequest {
        var prepared = request
        guard let dpop, Self.isDPoPBound(tokens) else {
            try authorize(&prepared, with: tokens)
            return prepared
        }
        guard let key = try await dpop.existingKey() else { throw Self.missingDPoPKey }
        try dpop.sign(&prepared, key: key, accessToken: tokens.accessToken)
        return prepared
    }

    /// Keeps the nonce an app's API handed out, and asks for the request again when the
    /// answer is a `use_dpop_nonce` challenge to a signed request.
    public func shouldRetry(_ response: TransportResponse, to request: TransportRequest) async -> Bool {
        guard let dpop else { return false }
        return dpop.observe(response, from: request.url, signed: dpop.loadedKey != nil)
    }

    /// Removes the DPoP key pair: the next login makes a new one.
    public func loggedOut() async {
        await dpop?.removeKey()
    }
}
