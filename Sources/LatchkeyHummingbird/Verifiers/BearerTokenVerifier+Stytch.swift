public import Foundation
public import Latchkey
public import LatchkeyJWT

extension BearerTokenVerifier {
    /// Verifies Stytch session JWTs (consumer, or B2B with `b2b`), as Stytch's backend
    /// SDKs do: keys from the project's JWKS (`v1/sessions/jwks/{project_id}`, B2B
    /// `v1/b2b/sessions/jwks/{project_id}`), `iss` = `stytch.com/{project_id}` or the
    /// custom domain, `aud` ∋ project ID, `exp`/`nbf`/`iat` within `leeway`, and the
    /// session claim present. B2B tokens must carry the organization claim, and its
    /// `organization_id` must equal `organizationID` when one is given.
    ///
    /// - Parameters:
    ///   - projectID: `project-test-…` or `project-live-…`.
    ///   - customDomain: the project's custom-domain base URL (`https://login.example.com`),
    ///     the other issuer Stytch signs with once one is set up.
    ///   - baseURL: where the JWKS is fetched; default `https://test.stytch.com/` for a
    ///     test project, else `https://api.stytch.com/` (an emulator's root in tests).
    ///   - transport: fetches the key set (retries and timeouts are the transport's).
    ///   - clock: the claims' and the key cache's time.
    /// - Throws: ``AuthError/Code/configuration`` for an empty project ID or a base URL
    ///   that is not https (or http to loopback).
    public static func stytch(
        projectID: String, b2b: Bool = false, organizationID: String? = nil, customDomain: String? = nil,
        baseURL: URL? = nil, leeway: TimeInterval = 60,
        transport: any HTTPTransport = DefaultTransport.make(), clock: any SessionClock = SystemClock(),
        cacheOptions: JWKSCache.Options = JWKSCache.Options()
    ) throws(AuthError) -> BearerTokenVerifier {
        guard !projectID.isEmpty, projectID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw AuthError(.configuration, "a Stytch verifier needs the project ID (project-test-… or project-live-…)")
        }
        let defaultRoot = projectID.hasPrefix("project-test-") ? "https://test.stytch.com/" : "https://api.stytch.com/"
        guard let root = baseURL ?? URL(string: defaultRoot) else { throw AuthError(.configuration, "the Stytch base URL is not a URL") }
        let keys = try JWKSCache.fetching(
            from: root.appending(path: (b2b ? "v1/b2b/sessions/jwks/" : "v1/sessions/jwks/") + projectID),
            transport: transport, clock: clock, options: cacheOptions)
        // Stytch writes the custom domain's base URL without a trailing slash.
        var issuers: Set<String> = ["stytch.com/\(projectID)"]
        if let customDomain, !customDomain.isEmpty { issuers.insert(customDomain.hasSuffix("/") ? String(customDomain.dropLast()) : customDomain) }
        var required: Set<String> = ["sub", "exp", StytchClaims.session]
        if b2b { required.insert(StytchClaims.organization) }
        let options = JWTValidationOptions(issuers: issuers, audience: projectID, requiredClaims: required, leeway: leeway, now: { clock.now })
        guard b2b, let organizationID else { return BearerTokenVerifier(keys: keys, options: options) }
        return BearerTokenVerifier(keys: keys, options: options) { token in
            // JOSE strings compare by code units (RFC 7519), never by canonical equivalence.
            token.organizationID.map { $0.utf8.elementsEqual(organizationID.utf8) } == true ? nil : "another organization"
        }
    }
}
