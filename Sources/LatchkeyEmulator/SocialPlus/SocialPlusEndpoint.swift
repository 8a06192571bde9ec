public import Foundation

/// Where the emulated social.plus network answers, and its keys. `description` hides the
/// server key.
public struct SocialPlusEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The base URL (`http://127.0.0.1:<port>/`), in place of `https://apix.<region>.amity.co`.
    public let baseURL: URL
    /// The API key for `X-API-Key`.
    public let apiKey: String
    /// The server key for `x-server-key` (an app backend's secret).
    public let serverKey: String
    /// Whether logins need an auth token.
    public let secureMode: Bool

    init(root: URL, seed: SocialPlusSeed) {
        baseURL = root
        apiKey = seed.apiKey
        serverKey = seed.serverKey
        secureMode = seed.secureMode
    }

    public var description: String {
        "SocialPlusEndpoint(\(baseURL.absoluteString), apiKey: \(apiKey), serverKey: <redacted>, secureMode: \(secureMode))"
    }
}
