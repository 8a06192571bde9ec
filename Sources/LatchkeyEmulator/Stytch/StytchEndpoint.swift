public import Foundation

/// Where the emulated Stytch project answers, and the identifiers an SDK needs.
public struct StytchEndpoint: Sendable, Hashable {
    /// The server's root (`http://127.0.0.1:<port>/`).
    public let baseURL: URL
    /// The SDK API's base URL (`<root>sdk/v1/`), in place of `https://test.stytch.com/sdk/v1/`.
    public let sdkBaseURL: URL
    /// The consumer session JWKS (`<root>v1/sessions/jwks/<project_id>`).
    public let jwksURL: URL
    /// The B2B session JWKS (`<root>v1/b2b/sessions/jwks/<project_id>`).
    public let b2bJWKSURL: URL
    public let projectID: String
    /// The public token to send in Basic auth.
    public let publicToken: String
    /// An app identifier the project authorizes (the SDK's `app_identifier` setting).
    public let appIdentifier: String

    init(root: URL, seed: StytchSeed) {
        baseURL = root
        sdkBaseURL = root.appending(path: "sdk/v1/")
        jwksURL = root.appending(path: "v1/sessions/jwks/\(seed.projectID)")
        b2bJWKSURL = root.appending(path: "v1/b2b/sessions/jwks/\(seed.projectID)")
        projectID = seed.projectID
        publicToken = seed.publicToken
        appIdentifier = seed.authorizedAppIdentifiers.first ?? StytchSeed.defaultAppIdentifier
    }
}
