public import Foundation
public import LatchkeyJSON
internal import LatchkeyJWT

/// What a locally verified session JWT says: whose session, which session, and until when.
public struct StytchSessionClaims: Sendable, Hashable {
    /// `sub`: the user ID (B2B: the member ID).
    public var subject: String
    /// The session's ID (`https://stytch.com/session` → `id`).
    public var sessionID: String?
    /// The organization, for B2B (`https://stytch.com/organization` → `organization_id`).
    public var organizationID: String?
    /// The organization's slug, for B2B.
    public var organizationSlug: String?
    /// `iss`: `stytch.com/{project_id}` or the custom domain.
    public var issuer: String
    /// `iat`.
    public var issuedAt: Date?
    /// `exp`: the JWT's own 5-minute expiry.
    public var expiresAt: Date?
    /// When the session itself ends (the session claim's `expires_at`).
    public var sessionExpiresAt: Date?
    /// The session claim (`id`, `started_at`, `last_accessed_at`, `expires_at`,
    /// `attributes`, `authentication_factors`, `roles`).
    public var session: JSONObject
    /// Every claim, custom claims (top level) included.
    public var claims: JSONObject

    /// Creates claims.
    public init(
        subject: String, sessionID: String?, organizationID: String?, organizationSlug: String?, issuer: String, issuedAt: Date?,
        expiresAt: Date?, sessionExpiresAt: Date?, session: JSONObject, claims: JSONObject
    ) {
        self.subject = subject
        self.sessionID = sessionID
        self.organizationID = organizationID
        self.organizationSlug = organizationSlug
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.sessionExpiresAt = sessionExpiresAt
        self.session = session
        self.claims = claims
    }
}
