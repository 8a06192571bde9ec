internal import Foundation
internal import Latchkey
internal import LatchkeyJSON

extension Auth0Provider {
    /// The session a token answer establishes or renews. The ID token, when present, is
    /// validated first. The refresh token is `new ?? old` (an answer without one keeps
    /// the old); without a new ID token the old one and its user stay. The session's end
    /// (`session_expiry`) is the first login's.
    func session(
        from response: TokenResponse, expectations: IDTokenValidator.Expectations = .init(), scope: String?,
        audience: String?, previous: AuthenticatedSession? = nil
    ) async throws -> AuthenticatedSession {
        let now = clock.now
        var claims: JSONObject?
        if let idToken = response.idToken {
            claims = try await validator.validate(idToken, expectations)
        } else if expectations.requiresIDToken {
            // A nonce or an organization was sent: only the ID token can confirm them.
            throw IDTokenValidator.rejection(
                Auth0IDTokenError(claim: "id_token", "missing from an answer to a request that sent a nonce or an organization"))
        }
        var attributes: [String: String] = [:]
        attributes["scope"] = response.scope ?? scope
        attributes["audience"] = audience
        // Always set: attributes merge key by key, and a Bearer answer must replace a DPoP one.
        attributes["token_type"] = response.isDPoPBound ? "DPoP" : "Bearer"
        if let expiry = claims?["session_expiry"]?.numberValue, expiry.isFinite {
            let local = Self.localSessionExpiry(expiry, issuedAt: claims?["iat"]?.numberValue, now: now)
            attributes["session_expiry"] = String(Int64(min(max(local, 0), 1e12)))
        }
        var tokens = SessionTokens(
            accessToken: response.accessToken, refreshToken: response.refreshToken ?? previous?.tokens.refreshToken,
            idToken: response.idToken ?? previous?.tokens.idToken, issuedAt: now,
            expiresAt: response.expiresIn.map { now.addingTimeInterval($0) }, attributes: attributes)
        if let pinned = previous?.tokens.attributes["session_expiry"] {
            // The session's end is fixed at the first login (as Auth0.swift pins it): a
            // refreshed ID token's later `session_expiry` never extends it past the
            // upstream session's boundary.
            tokens.attributes["session_expiry"] = pinned
        }
        return makeSession(tokens: tokens, claims: claims, previous: previous)
    }

    /// `session_expiry` (Auth0's clock) as a time on the local clock: what is left of the
    /// session when the ID token was issued (`session_expiry − iat`), from `now`, the
    /// moment of receipt. Without a usable `iat` the stated time is all there is.
    static func localSessionExpiry(_ expiry: Double, issuedAt: Double?, now: Date) -> Double {
        guard let issuedAt, issuedAt.isFinite,
            let left = ServerLifetime(from: Date(timeIntervalSince1970: issuedAt), to: Date(timeIntervalSince1970: expiry))
        else { return expiry }
        return left.end(startingAt: now).timeIntervalSince1970
    }

    /// The report for `tokens`: the user from the ID token's claims (when there are
    /// new ones) and the session with the access token's expiry and the session's end.
    func makeSession(tokens: SessionTokens, claims: JSONObject?, previous: AuthenticatedSession?) -> AuthenticatedSession {
        let user = claims.flatMap(Self.user(from:))
        guard let userID = user?.id ?? previous?.user?.id ?? previous?.session?.userID else {
            return AuthenticatedSession(tokens: tokens)
        }
        var raw = previous?.session?.raw ?? [:]
        if let expiresAt = tokens.expiresAt { raw["access_token_expires_at"] = .number(expiresAt.timeIntervalSince1970.rounded()) }
        if let expiry = tokens.attributes["session_expiry"].flatMap(Double.init) { raw["session_expiry"] = .number(expiry) }
        var startedAt = previous?.session?.startedAt
        if let authTime = claims?["auth_time"]?.numberValue, authTime.isFinite { startedAt = Date(timeIntervalSince1970: authTime) }
        let session = Session(
            id: nil, userID: userID, startedAt: startedAt, lastAccessedAt: tokens.issuedAt,
            expiresAt: Self.sessionEnd(of: tokens), raw: raw)
        return AuthenticatedSession(tokens: tokens, session: session, user: user)
    }

    /// A user from OIDC claims (an ID token's or `/userinfo`'s), every claim kept raw.
    static func user(from claims: JSONObject) -> User? {
        guard let subject = claims.nonEmptyString("sub") else { return nil }
        return User(id: subject, email: claims.nonEmptyString("email"), name: claims.nonEmptyString("name"), raw: claims)
    }
}
