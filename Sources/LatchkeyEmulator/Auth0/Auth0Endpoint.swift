public import Foundation

/// Where the emulated Auth0 tenant answers, and the identifiers an SDK needs.
public struct Auth0Endpoint: Sendable, Hashable {
    /// Where the tenant answers (`http://127.0.0.1:<port>/`): an SDK's base-URL override.
    public let baseURL: URL
    /// The tenant's domain: the seed's, else `127.0.0.1:<port>`. An SDK configured with it
    /// alone would talk https to it; give it ``baseURL`` as well.
    public let domain: String
    /// The tokens' `iss`: `https://{domain}/`, as Auth0 issues it — never ``baseURL``.
    public let issuer: String
    public let clientID: String
    /// The database connection, the password-realm grant's `realm`.
    public let connection: String
    /// `<base>.well-known/jwks.json`.
    public let jwksURL: URL
    /// `<base>.well-known/openid-configuration`.
    public let discoveryURL: URL

    init(root: URL, seed: Auth0Seed) {
        baseURL = root
        domain = Self.domain(seed: seed, root: root)
        issuer = "https://\(domain)/"
        clientID = seed.clientID
        connection = seed.connection
        jwksURL = root.appending(path: ".well-known/jwks.json")
        discoveryURL = root.appending(path: ".well-known/openid-configuration")
    }

    /// The seed's domain, else the root's `host:port`.
    static func domain(seed: Auth0Seed, root: URL) -> String {
        if let domain = seed.domain, !domain.isEmpty { return domain }
        return root.host().map { host in root.port.map { "\(host):\($0)" } ?? host } ?? ""
    }
}
