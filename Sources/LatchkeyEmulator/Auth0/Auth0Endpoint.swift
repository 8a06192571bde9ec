public import Foundation

/// Where the emulated Auth0 tenant answers, and the identifiers an SDK needs.
public struct Auth0Endpoint: Sendable, Hashable {
    /// The tenant's base URL (`http://127.0.0.1:<port>/`), which is also the `iss` of its tokens.
    public let baseURL: URL
    /// The "domain" (`127.0.0.1:<port>`), for SDKs configured with one (mind the scheme: http).
    public let domain: String
    /// The ID tokens' `iss`: the base URL with its trailing slash.
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
        domain = root.host().map { host in root.port.map { "\(host):\($0)" } ?? host } ?? ""
        issuer = root.absoluteString
        clientID = seed.clientID
        connection = seed.connection
        jwksURL = root.appending(path: ".well-known/jwks.json")
        discoveryURL = root.appending(path: ".well-known/openid-configuration")
    }
}
