/// The names of Stytch's session-JWT claims (providers.md). Kept here, not taken from
/// LatchkeyStytch: a server module depends on the core and the JWT toolkit only, and
/// adapters are never imported beside each other; these few constants are the whole of
/// what the verifier needs to know about Stytch.
enum StytchClaims {
    /// `{id, started_at, last_accessed_at, expires_at, attributes, authentication_factors, roles}`.
    static let session = "https://stytch.com/session"
    /// B2B: `{organization_id, slug}`.
    static let organization = "https://stytch.com/organization"
}
