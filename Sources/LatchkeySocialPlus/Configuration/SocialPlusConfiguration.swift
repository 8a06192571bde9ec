public import Foundation
public import Latchkey

/// Where and with which key the adapter talks to social.plus, read from the provider
/// settings (`api_key`, `region`, `base_url`). ``description`` never shows the key.
public struct SocialPlusConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The network's API key, sent as `X-API-Key` on logins.
    public var apiKey: String
    /// The API's base URL: the region's, or the `base_url` override.
    public var baseURL: URL

    /// A configuration for `region`, or for `baseURL` when given (an emulator, a proxy).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when `baseURL` is neither https
    ///   nor http to a loopback address (``/Latchkey/SecureURL``): the API key goes there.
    public init(apiKey: String, region: SocialPlusRegion = .sg, baseURL: URL? = nil) throws(AuthError) {
        if let baseURL { try SecureURL.check(baseURL, what: "the social.plus base URL") }
        self.apiKey = apiKey
        self.baseURL = baseURL ?? region.baseURL
    }

    /// The settings the adapter takes.
    public static let schema = ProviderSettingsSchema([
        .init("api_key", required: true, secret: true, summary: "the network's API key (X-API-Key)"),
        .init("region", summary: "sg (default), eu or us: https://apix.{region}.amity.co"),
        .init("base_url", .url, summary: "overrides the region's base URL (an emulator, a proxy)"),
    ])

    /// Reads the settings.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the key: a missing `api_key`, a
    ///   `region` other than `sg`, `eu` or `us`, a `base_url` that is not an http(s) URL.
    public init(settings: ProviderSettings) throws(AuthError) {
        let apiKey = try settings.required("api_key")
        var region = SocialPlusRegion.sg
        if let text = settings["region"] {
            guard let parsed = SocialPlusRegion(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw AuthError(
                    .configuration,
                    "setting \"settings.region\" for provider \"\(SocialPlusProvider.identifier)\" must be one of \(SocialPlusRegion.allCases.map(\.rawValue).joined(separator: ", ")); got \"\(text)\""
                )
            }
            region = parsed
        }
        try self.init(apiKey: apiKey, region: region, baseURL: try settings.url("base_url"))
    }

    public var description: String {
        "SocialPlusConfiguration(\(baseURL.absoluteString), apiKey: <redacted>)"
    }
}
