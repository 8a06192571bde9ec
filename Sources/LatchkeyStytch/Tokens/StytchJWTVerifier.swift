internal import Foundation
internal import Latchkey
internal import LatchkeyJWT

/// Checks session JWTs without a round trip: the signature against the project's JWKS
/// (`<root>v1/sessions/jwks/{project_id}`, B2B `<root>v1/b2b/sessions/jwks/{project_id}`)
/// through the JWT toolkit's ``/LatchkeyJWT/JWKSCache`` (an unknown `kid` refetches once, so a key
/// rotation is picked up), `iss` = `stytch.com/{project_id}` or the custom domain,
/// `aud` ∋ project ID, `exp`/`nbf`/`iat` with the session options' leeway, and the
/// session claim present.
struct StytchJWTVerifier: Sendable {
    let projectID: String?
    let customDomain: String?
    let leeway: TimeInterval
    let clock: any SessionClock
    let cache: JWKSCache?

    static let sessionClaim = "https://stytch.com/session"
    static let organizationClaim = "https://stytch.com/organization"

    init(settings: StytchConfiguration, b2b: Bool, transport: any HTTPTransport, clock: any SessionClock, leeway: TimeInterval) {
        projectID = settings.projectID
        customDomain = settings.customDomain
        self.leeway = leeway
        self.clock = clock
        guard let projectID = settings.projectID else {
            cache = nil
            return
        }
        let url = settings.baseURL.appending(path: (b2b ? "v1/b2b/sessions/jwks/" : "v1/sessions/jwks/") + projectID)
        cache = JWKSCache.fetchingOrRefusing(from: url, transport: transport, clock: clock) { response in
            StytchAPIClient.classify(status: response.status, body: response.body, path: .jwks, retryAfter: response.retryAfter)
        }
    }

    func verify(_ jwt: String) async throws(AuthError) -> StytchSessionClaims {
        guard let projectID, let cache else {
            throw AuthError(.configuration, "a local session-JWT check needs setting \"settings.project_id\"")
        }
        let verified: JWT
        do {
            verified = try await cache.verify(
                jwt,
                options: JWTValidationOptions(
                    audience: projectID, requiredClaims: ["exp", "sub", "iss"],
                    leeway: leeway, now: { [clock] in clock.now }))
        } catch let error as JWTError {
            throw AuthError(.renewAndRecheck, "the session JWT failed the local check: \(error)", providerCode: "\(error.code)", underlying: error)
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError.classifying(error)
        }
        let claims = verified.claims
        // JOSE strings compare by their code units (RFC 7519), never by canonical equivalence.
        func same(_ a: String, _ b: String?) -> Bool { b.map { a.utf8.elementsEqual($0.utf8) } ?? false }
        guard let issuer = claims.issuer, same(issuer, "stytch.com/\(projectID)") || same(issuer, customDomain) else {
            throw AuthError(
                .renewAndRecheck, "the session JWT's issuer \"\(claims.issuer ?? "")\" is neither stytch.com/\(projectID) nor the custom domain",
                providerCode: "wrongIssuer")
        }
        guard let subject = claims.subject, let session = claims[Self.sessionClaim]?.objectValue else {
            throw AuthError(.renewAndRecheck, "the session JWT has no \(Self.sessionClaim) claim", providerCode: "missingClaim")
        }
        let organization = claims[Self.organizationClaim]?.objectValue
        return StytchSessionClaims(
            subject: subject, sessionID: session.nonEmptyString("id"), organizationID: organization?.nonEmptyString("organization_id"),
            organizationSlug: organization?.nonEmptyString("slug"), issuer: issuer, issuedAt: claims.issuedAt,
            expiresAt: claims.expiresAt, sessionExpiresAt: session.timestamp("expires_at"), session: session,
            claims: claims.object)
    }
}
