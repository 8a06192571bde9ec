/// An API registered in the tenant (Auth0's "resource server"): the audience an access
/// token is made for, and the permissions it defines.
public struct Auth0SeedAPI: Sendable, Codable, Hashable {
    /// The API identifier: the `audience` of a token request and the `aud` of its tokens.
    public var identifier: String
    /// The permissions (scopes) the API defines.
    public var scopes: [String]
    /// The lifetime of the API's access tokens, in seconds (default 86,400, Auth0's).
    public var tokenLifetime: Int?

    public init(identifier: String, scopes: [String], tokenLifetime: Int? = nil) {
        self.identifier = identifier
        self.scopes = scopes
        self.tokenLifetime = tokenLifetime
    }
}

/// A machine-to-machine application: a confidential client that gets tokens with the
/// `client_credentials` grant for the APIs it is granted (Auth0's "client grants").
public struct Auth0SeedMachineClient: Sendable, Codable, CustomStringConvertible {
    /// One client grant: an API and the scopes this client may have there.
    public struct Grant: Sendable, Codable, Hashable {
        /// The API identifier.
        public var audience: String
        /// The scopes granted, a subset of the API's.
        public var scopes: [String]

        public init(audience: String, scopes: [String]) {
            self.audience = audience
            self.scopes = scopes
        }
    }

    public var clientID: String
    /// The client secret, checked in constant time.
    public var clientSecret: String
    public var grants: [Grant]

    public init(clientID: String, clientSecret: String, grants: [Grant]) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.grants = grants
    }

    public var description: String { "Auth0SeedMachineClient(\(clientID), secret: <redacted>, \(grants.count) grants)" }
}

extension Auth0Seed {
    /// The API the standard tenant registers.
    public static let standardAPI = Auth0SeedAPI(
        identifier: "https://api.latchkey.example/",
        scopes: ["read:messages", "write:messages", "read:reports", "admin"])
    /// The standard tenant's machine client: `latchkey-emulator-m2m`, secret
    /// `m2m-secret-1`, granted `read:messages write:messages read:reports` on ``standardAPI``.
    public static let standardMachineClient = Auth0SeedMachineClient(
        clientID: "latchkey-emulator-m2m", clientSecret: "m2m-secret-1",
        grants: [.init(audience: standardAPI.identifier, scopes: ["read:messages", "write:messages", "read:reports"])])
}
