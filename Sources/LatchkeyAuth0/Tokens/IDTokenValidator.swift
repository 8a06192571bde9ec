internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// Validates ID tokens as Auth0.swift does, and no looser. The token is parsed and
/// verified once, by the JWT toolkit (``/LatchkeyJWT/JWKSCache/verify(_:options:)``): RS256 only, the
/// signature with the tenant's JWKS (refetched once for an unknown `kid`), and the
/// registered claims by its own checks — `iss` and `aud` compared by code units, `exp`,
/// `nbf` and `iat` against the clock with the leeway (`nbf` and `iat` ahead of the clock
/// by up to ``futureSkew``: a device clock minutes behind Auth0's still takes the token
/// Auth0 just issued, while one dated a day or a year ahead is refused). Then only Auth0's own: `kid`
/// present, `sub` non-empty, `azp`, `nonce`, `auth_time` and the organization, compared
/// by code units too. Leeway is in seconds.
struct IDTokenValidator: Sendable {
    /// What a particular answer's ID token must satisfy beyond the fixed checks.
    struct Expectations: Sendable {
        /// The `nonce` sent with the authorization request.
        var nonce: String?
        /// The `max_age` sent with the authorization request, in seconds.
        var maxAge: TimeInterval?
        /// The organization asked for.
        var organization: String?

        /// Whether the answer must carry an ID token: something was sent that only the
        /// ID token can confirm.
        var requiresIDToken: Bool { nonce != nil || organization != nil }
    }

    let configuration: Auth0Configuration
    let keys: JWKSCache
    let clock: any SessionClock

    /// How far `nbf` and `iat` may be ahead of the device's clock: device clocks run
    /// minutes off the issuer's, and the token was made a moment ago on Auth0's.
    static let futureSkew: TimeInterval = 900

    /// The claims every ID token carries.
    private static let required: Set<String> = ["iss", "sub", "aud", "exp", "iat"]

    /// The validated claims.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/unrecoverable`` (`id_token_invalid`, underlying
    ///   ``Auth0IDTokenError``) for a token that fails; ``/Latchkey/AuthError/Code/transient`` when
    ///   the signing keys cannot be fetched.
    func validate(_ token: String, _ expectations: Expectations = Expectations()) async throws -> JSONObject {
        do {
            return try await check(token, expectations)
        } catch let error as Auth0IDTokenError {
            throw Self.rejection(error)
        }
    }

    static func rejection(_ error: Auth0IDTokenError) -> AuthError {
        AuthError(
            .unrecoverable, "Auth0's answer carried an ID token that failed validation: \(error)", providerCode: "id_token_invalid",
            underlying: error)
    }

    private func check(_ token: String, _ expectations: Expectations) async throws -> JSONObject {
        // The keys first, on their own: a tenant that cannot be reached says nothing
        // about the token (transient), while a token the keys refuse is refused.
        do { _ = try await keys.keySet() } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.transient, "Auth0's signing keys could not be fetched: \(error)", underlying: error)
        }
        let clock = self.clock
        let options = JWTValidationOptions(
            issuer: configuration.issuer, audience: configuration.clientID, requiredClaims: Self.required,
            leeway: configuration.leeway, futureLeeway: max(configuration.leeway, Self.futureSkew),
            jws: JWSOptions(allowedAlgorithms: [.rs256]),
            now: { clock.now })
        let jwt: JWT
        do { jwt = try await keys.verify(token, options: options) } catch let error as JWTError {
            throw Self.refusal(error)
        }
        guard let kid = jwt.header.keyID, !kid.isEmpty else { throw Auth0IDTokenError(claim: "kid", "missing from the header") }
        let claims = jwt.claims.object
        try checkAuth0Claims(claims, expectations)
        return claims
    }

    /// The toolkit's refusal, named by the claim or header field at fault.
    private static func refusal(_ error: JWTError) -> Auth0IDTokenError {
        switch error.code {
        case .unsupportedAlgorithm, .unsecuredNotAllowed:
            return Auth0IDTokenError(claim: "alg", "\(error.message); only RS256 is accepted")
        case .algorithmMismatch:
            return Auth0IDTokenError(claim: "alg", "\(error.message); only RS256 is accepted")
        case .signatureInvalid, .keyNotFound, .invalidKey, .keyUsageNotAllowed:
            return Auth0IDTokenError(claim: "signature", "does not verify (\(error.message))")
        case .expired, .notYetValid, .issuedAtInvalid, .wrongIssuer, .wrongAudience, .missingClaim, .invalidClaim:
            return Auth0IDTokenError(claim: error.claim ?? "token", error.message)
        default:
            return Auth0IDTokenError(claim: "token", "not a signed JWT (\(error.code))")
        }
    }

    private func checkAuth0Claims(_ claims: JSONObject, _ expectations: Expectations) throws(Auth0IDTokenError) {
        let now = clock.now.timeIntervalSince1970
        let leeway = configuration.leeway
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw Auth0IDTokenError(claim: "sub", "missing or empty") }
        if case .array(let audiences) = claims["aud"], audiences.count > 1 {
            guard let azp = claims["azp"]?.stringValue else { throw Auth0IDTokenError(claim: "azp", "missing, with several audiences") }
            guard sameCodeUnits(azp, configuration.clientID) else { throw Auth0IDTokenError(claim: "azp", "\"\(azp)\" is not the client ID") }
        }
        if let nonce = expectations.nonce {
            guard let claim = claims["nonce"]?.stringValue else { throw Auth0IDTokenError(claim: "nonce", "missing; one was sent") }
            guard sameCodeUnits(claim, nonce) else { throw Auth0IDTokenError(claim: "nonce", "does not match the one sent") }
        }
        if let maxAge = expectations.maxAge {
            guard let authTime = claims["auth_time"]?.numberValue else { throw Auth0IDTokenError(claim: "auth_time", "missing; max_age was sent") }
            guard now <= authTime + maxAge + leeway else {
                throw Auth0IDTokenError(claim: "auth_time", "the user authenticated at \(Self.text(authTime)), longer ago than max_age")
            }
        }
        if let organization = expectations.organization {
            if organization.hasPrefix("org_") {
                guard let orgID = claims["org_id"]?.stringValue else {
                    throw Auth0IDTokenError(claim: "org_id", "missing; an organization was asked")
                }
                guard sameCodeUnits(orgID, organization) else {
                    throw Auth0IDTokenError(claim: "org_id", "\"\(orgID)\" is not the organization asked")
                }
            } else {
                guard let orgName = claims["org_name"]?.stringValue else {
                    throw Auth0IDTokenError(claim: "org_name", "missing; an organization was asked")
                }
                guard sameCodeUnits(orgName, organization.lowercased()) else {
                    throw Auth0IDTokenError(claim: "org_name", "\"\(orgName)\" is not the organization asked")
                }
            }
        }
    }

    private static func text(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e11 else { return "\(seconds)" }
        return Date(timeIntervalSince1970: seconds).formatted(.iso8601)
    }
}
