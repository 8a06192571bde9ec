internal import Foundation
internal import Latchkey
internal import LatchkeyJWT

internal import LatchkeyJSON
/// Validates ID tokens as Auth0.swift does, and no looser: RS256 only, `kid` required,
/// the signature checked with the tenant's JWKS (refetched once for an unknown `kid`),
/// then `iss`, `sub`, `aud`, `azp`, `exp`, `iat`, `nonce`, `auth_time` and the
/// organization. Leeway is in seconds.
struct IDTokenValidator: Sendable {
    /// What a particular answer's ID token must satisfy beyond the fixed checks.
    struct Expectations: Sendable {
        /// The `nonce` sent with the authorization request.
        var nonce: String?
        /// The `max_age` sent with the authorization request, in seconds.
        var maxAge: TimeInterval?
        /// The organization asked for.
        var organization: String?
    }

    let configuration: Auth0Configuration
    let keys: JWKSCache
    let clock: any SessionClock

    /// The validated claims.
    ///
    /// - Throws: ``AuthError/Code/unrecoverable`` (`id_token_invalid`, underlying
    ///   ``Auth0IDTokenError``) for a token that fails; ``AuthError/Code/transient`` when
    ///   the signing keys cannot be fetched.
    func validate(_ token: String, _ expectations: Expectations = Expectations()) async throws -> JSONObject {
        do {
            return try await check(token, expectations)
        } catch let error as Auth0IDTokenError {
            throw Self.rejection(error)
        }
    }

    static func rejection(_ error: Auth0IDTokenError) -> AuthError {
        AuthError(.unrecoverable, "Auth0's answer carried an ID token that failed validation: \(error)", providerCode: "id_token_invalid",
                  underlying: error)
    }

    private func check(_ token: String, _ expectations: Expectations) async throws -> JSONObject {
        let jws: CompactJWS
        do { jws = try CompactJWS(token) } catch { throw Auth0IDTokenError(claim: "token", "not a signed JWT") }
        guard jws.header.algorithmName == JWSAlgorithm.rs256.rawValue else {
            throw Auth0IDTokenError(claim: "alg", "signed with \"\(jws.header.algorithmName)\"; only RS256 is accepted")
        }
        guard let kid = jws.header.keyID, !kid.isEmpty else { throw Auth0IDTokenError(claim: "kid", "missing from the header") }
        do {
            _ = try await keys.verifyJWS(token, options: JWSOptions(allowedAlgorithms: [.rs256]))
        } catch let error as JWTError {
            throw Auth0IDTokenError(claim: "signature", error.code == .keyNotFound ? "no published key has kid \"\(kid)\"" : "does not verify (\(error.code))")
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.transient, "Auth0's signing keys could not be fetched: \(error)", underlying: error)
        }
        let claims: JSONObject
        do { claims = try JWT.decode(token).claims.object } catch { throw Auth0IDTokenError(claim: "token", "the claims are not a JSON object") }
        try checkClaims(claims, expectations)
        return claims
    }

    private func checkClaims(_ claims: JSONObject, _ expectations: Expectations) throws(Auth0IDTokenError) {
        let now = clock.now.timeIntervalSince1970
        let leeway = configuration.leeway
        guard let issuer = claims["iss"]?.stringValue else { throw Auth0IDTokenError(claim: "iss", "missing") }
        guard issuer == configuration.issuer else {
            throw Auth0IDTokenError(claim: "iss", "\"\(issuer)\" is not \"\(configuration.issuer)\"")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw Auth0IDTokenError(claim: "sub", "missing or empty") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let value): audiences = [value]
        case .array(let values) where values.allSatisfy({ $0.stringValue != nil }): audiences = values.compactMap(\.stringValue)
        case nil: throw Auth0IDTokenError(claim: "aud", "missing")
        default: throw Auth0IDTokenError(claim: "aud", "neither a string nor an array of strings")
        }
        guard audiences.contains(configuration.clientID) else {
            throw Auth0IDTokenError(claim: "aud", "does not contain the client ID \"\(configuration.clientID)\"")
        }
        guard let expiry = claims["exp"]?.numberValue else { throw Auth0IDTokenError(claim: "exp", "missing or not a number") }
        guard now < expiry + leeway else { throw Auth0IDTokenError(claim: "exp", "expired at \(Self.text(expiry))") }
        guard claims["iat"]?.numberValue != nil else { throw Auth0IDTokenError(claim: "iat", "missing or not a number") }
        if let nonce = expectations.nonce {
            guard let claim = claims["nonce"]?.stringValue else { throw Auth0IDTokenError(claim: "nonce", "missing; one was sent") }
            guard claim == nonce else { throw Auth0IDTokenError(claim: "nonce", "does not match the one sent") }
        }
        if audiences.count > 1 {
            guard let azp = claims["azp"]?.stringValue else { throw Auth0IDTokenError(claim: "azp", "missing, with several audiences") }
            guard azp == configuration.clientID else { throw Auth0IDTokenError(claim: "azp", "\"\(azp)\" is not the client ID") }
        }
        if let maxAge = expectations.maxAge {
            guard let authTime = claims["auth_time"]?.numberValue else { throw Auth0IDTokenError(claim: "auth_time", "missing; max_age was sent") }
            guard now <= authTime + maxAge + leeway else {
                throw Auth0IDTokenError(claim: "auth_time", "the user authenticated at \(Self.text(authTime)), longer ago than max_age")
            }
        }
        if let organization = expectations.organization {
            if organization.hasPrefix("org_") {
                guard let orgID = claims["org_id"]?.stringValue else { throw Auth0IDTokenError(claim: "org_id", "missing; an organization was asked") }
                guard orgID == organization else { throw Auth0IDTokenError(claim: "org_id", "\"\(orgID)\" is not the organization asked") }
            } else {
                guard let orgName = claims["org_name"]?.stringValue else {
                    throw Auth0IDTokenError(claim: "org_name", "missing; an organization was asked")
                }
                guard orgName == organization.lowercased() else {
                    throw Auth0IDTokenError(claim: "org_name", "\"\(orgName)\" is not the organization asked")
                }
            }
        }
    }

    private static func text(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(.iso8601)
    }
}
