public import Foundation
public import Latchkey

/// Where the adapter talks to TinyAuth, and as which app.
public struct TinyAuthConfiguration: Sendable, Hashable {
    /// The service's root URL.
    public var baseURL: URL
    /// The app's client ID, sent as `X-Client-ID`.
    public var clientID: String

    /// The settings the adapter takes, checked by the registry before the adapter is built:
    /// an unknown key, a missing required one or a malformed URL is a configuration error
    /// naming the key. A key marked `secret: true` (none here) draws a warning when it is
    /// written in the configuration file instead of `LATCHKEY_SETTING_<NAME>`.
    public static let schema = ProviderSettingsSchema([
        .init("base_url", .url, required: true, summary: "the service's root URL (plain http only for a loopback address)"),
        .init("client_id", required: true, summary: "the app's client ID, sent as X-Client-ID"),
    ])

    /// A configuration made in code.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when `baseURL` is neither https
    ///   nor http to a loopback address (``/Latchkey/SecureURL``, the rule every adapter calls).
    public init(baseURL: URL, clientID: String) throws(AuthError) {
        try SecureURL.check(baseURL, what: "the TinyAuth base URL")
        self.baseURL = baseURL
        self.clientID = clientID
    }

    /// Reads the settings (keys as in ``schema``); `base_url` goes through the same URL rule.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the missing or malformed key.
    public init(settings: ProviderSettings) throws(AuthError) {
        guard let baseURL = try settings.url("base_url") else {
            throw AuthError(.configuration, "setting \"settings.base_url\" for provider \"tinyauth\" is required")
        }
        try self.init(baseURL: baseURL, clientID: try settings.required("client_id"))
    }
}
