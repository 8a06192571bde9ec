public import LatchkeyJWT

/// A bearer token that passed verification: its signature, its claims and the
/// verifier's own checks. The middleware puts it in the request context as the
/// identity (`context.identity`, `context.requireIdentity()`).
public struct VerifiedToken: Sendable {
    /// The verified token: its header and every claim.
    public let jwt: JWT
    /// `sub`: the user (Stytch: the user or member ID; Auth0 machine tokens: `<client_id>@clients`).
    public let subject: String?
    /// `iss`.
    public let issuer: String?
    /// What the token grants: the words of the space-separated `scope` claim and the
    /// strings of Auth0's `permissions` array, together.
    public let scopes: Set<String>
    /// The organization the token is for: Stytch B2B's
    /// `https://stytch.com/organization` → `organization_id`, else Auth0's `org_id`.
    public let organizationID: String?
    /// The organization's slug (Stytch B2B), when the token names one.
    public let organizationSlug: String?

    /// The claims of ``jwt``.
    public var claims: JWTClaims { jwt.claims }

    /// Reads what the middleware and handlers need from a verified token.
    public init(_ jwt: JWT) {
        self.jwt = jwt
        let claims = jwt.claims
        subject = claims.subject
        issuer = claims.issuer
        scopes = Self.scopes(of: claims)
        let stytchOrganization = claims[StytchClaims.organization]?.objectValue
        organizationID = stytchOrganization?["organization_id"]?.stringValue ?? claims["org_id"]?.stringValue
        organizationSlug = stytchOrganization?["slug"]?.stringValue
    }

    /// Whether the token grants every one of `required`.
    public func grants(_ required: Set<String>) -> Bool { required.isSubset(of: scopes) }

    /// `scope` (RFC 8693 §4.2: space-separated) and `permissions` (Auth0's RBAC: an
    /// array of strings). Values of another type grant nothing.
    static func scopes(of claims: JWTClaims) -> Set<String> {
        var scopes = Set<String>()
        if let scope = claims["scope"]?.stringValue {
            for word in scope.split(separator: " ", omittingEmptySubsequences: true) { scopes.insert(String(word)) }
        }
        if let permissions = claims["permissions"]?.arrayValue {
            for permission in permissions { if let value = permission.stringValue { scopes.insert(value) } }
        }
        return scopes
    }
}
