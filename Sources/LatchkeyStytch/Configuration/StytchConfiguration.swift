public import Foundation
public import Latchkey
internal import LatchkeyJWT

/// A Stytch adapter's configuration, read from the provider settings the registry checked
/// against ``schema`` or made in code.
///
/// | key | kind | |
/// |---|---|---|
/// | `public_token` | string, required | `public-token-test-…` (test host) or `public-token-live-…` (live host) |
/// | `base_url` | URL | the API's root instead of `https://test.stytch.com/` / `https://api.stytch.com/` (the emulator); a URL ending in `/sdk/v1/` is taken as the SDK base |
/// | `project_id` | string | the project, for local session-JWT checks (`aud`, `iss`, the JWKS path) |
/// | `custom_domain` | string | the project's custom-domain base URL, accepted as the JWT's `iss` |
/// | `auto_extend` | boolean | heartbeat checks and renewals send the session duration, so a running app keeps its session (default off) |
/// | `app_identifier` | string, required | the app's bundle ID / package name in the `X-SDK-Client` header: one of the project's Authorized environments |
/// | `redirect_uri` | string | OAuth's loopback redirect on a fixed port, e.g. `http://127.0.0.1:53682/callback`; add it to the project's Redirect URLs (Login and Sign-up) |
public struct StytchConfiguration: Sendable, Hashable {
    /// The project's public token.
    public var publicToken: String
    /// The root the SDK API (`<root>sdk/v1/…`) and the JWKS (`<root>v1/…`) live under.
    public var baseURL: URL
    /// The project ID, when configured (needed for local JWT checks).
    public var projectID: String?
    /// The custom domain's base URL (no trailing slash), when configured.
    public var customDomain: String?
    /// Whether plain renewals extend the session by the configured session duration.
    public var autoExtend: Bool
    /// The app's identifier sent in `X-SDK-Client`: its bundle ID / package name, which
    /// must be one of the project's Authorized environments (Stytch dashboard, SDK
    /// configuration), or Stytch answers `invalid_mobile_identifier` to every request.
    public var appIdentifier: String
    /// Where OAuth logins redirect: `http://127.0.0.1:<port>/<path>` on a fixed port, listed
    /// in the project's Redirect URLs for Login and Sign-up. `nil`: OAuth is refused with a
    /// configuration error.
    public var redirectURI: LoopbackRedirect?

    /// Where an app identifier is registered, for error messages.
    static let appIdentifierHelp =
        "register the app's bundle ID / package name under Authorized environments in the Stytch dashboard (SDK configuration) and set it as \"settings.app_identifier\""

    /// The settings the Stytch adapters take.
    public static let schema = ProviderSettingsSchema([
        .init("public_token", .string, required: true, summary: "the project's public token (public-token-test-… or public-token-live-…)"),
        .init("base_url", .url, summary: "the API root instead of Stytch's test or live host (e.g. the emulator)"),
        .init("project_id", .string, summary: "the project ID, for local session-JWT checks"),
        .init("custom_domain", .string, summary: "the project's custom-domain base URL, accepted as the session JWT's issuer"),
        .init("auto_extend", .boolean, summary: "renewals extend the session by the session duration (default false)"),
        .init(
            "app_identifier", .string, required: true,
            summary: "the app's bundle ID / package name (X-SDK-Client), registered under Authorized environments in the Stytch dashboard"),
        .init(
            "redirect_uri", .string,
            summary: "OAuth's loopback redirect on a fixed port, e.g. http://127.0.0.1:53682/callback; add it to the project's Redirect URLs"),
    ])

    /// Creates settings in code. There is no default app identifier: Stytch accepts only
    /// one registered for the project.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when the public token is not
    ///   `public-token-test-…` or `public-token-live-…`, the app identifier is empty, or
    ///   `baseURL` is neither https nor http to a loopback address (``/Latchkey/SecureURL``).
    public init(
        publicToken: String, appIdentifier: String, baseURL: URL? = nil, projectID: String? = nil, customDomain: String? = nil,
        autoExtend: Bool = false, redirectURI: LoopbackRedirect? = nil
    ) throws(AuthError) {
        let isTest = publicToken.hasPrefix(Self.testPrefix) && publicToken.count > Self.testPrefix.count
        let isLive = publicToken.hasPrefix(Self.livePrefix) && publicToken.count > Self.livePrefix.count
        guard isTest || isLive else {
            throw AuthError(
                .configuration, "setting \"settings.public_token\" is not a Stytch public token (expected public-token-test-… or public-token-live-…)"
            )
        }
        // Character.isWhitespace is Unicode's White_Space, as CharacterSet's whitespacesAndNewlines
        // is, without bridging to NSString (a tenth of `latchkey session token`'s Swift time).
        let appIdentifier = appIdentifier.trimming(while: \.isWhitespace)
        guard !appIdentifier.isEmpty else {
            throw AuthError(.configuration, "setting \"settings.app_identifier\" is required: \(Self.appIdentifierHelp)")
        }
        if let baseURL { try SecureURL.check(baseURL, what: "the Stytch base URL") }
        self.publicToken = publicToken
        self.baseURL = Self.root(of: baseURL) ?? URL(string: isTest ? "https://test.stytch.com/" : "https://api.stytch.com/")!
        self.projectID = projectID.flatMap { $0.isEmpty ? nil : $0 }
        self.customDomain = customDomain.flatMap { $0.isEmpty ? nil : String($0.reversed().drop { $0 == "/" }.reversed()) }
        self.autoExtend = autoExtend
        self.appIdentifier = appIdentifier
        self.redirectURI = redirectURI
    }

    /// Reads settings from a configuration (keys as in ``schema``).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the missing or malformed key.
    public init(settings: ProviderSettings) throws(AuthError) {
        var redirectURI: LoopbackRedirect?
        if let text = settings["redirect_uri"] {
            do { redirectURI = try LoopbackRedirect(text) } catch {
                throw AuthError(.configuration, "setting \"settings.redirect_uri\" for provider \"stytch\": \(error.message)")
            }
        }
        try self.init(
            publicToken: try settings.required("public_token"), appIdentifier: settings["app_identifier"] ?? "",
            baseURL: try settings.url("base_url"), projectID: settings["project_id"], customDomain: settings["custom_domain"],
            autoExtend: try settings.boolean("auto_extend") ?? false, redirectURI: redirectURI)
    }

    /// Whether the public token is a test project's.
    public var isTestProject: Bool { publicToken.hasPrefix(Self.testPrefix) }

    /// `<root>sdk/v1/`.
    var sdkBaseURL: URL { baseURL.appending(path: "sdk/v1/") }

    private static let testPrefix = "public-token-test-"
    private static let livePrefix = "public-token-live-"

    /// The root of `url`, with a trailing slash; a URL ending in `sdk/v1` names its root.
    private static func root(of url: URL?) -> URL? {
        guard let url else { return nil }
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix("/sdk/v1") { text.removeLast("/sdk/v1".count) }
        return URL(string: text + "/")
    }
}

/// Renamed: every adapter's settings type is its `…Configuration`.
@available(*, deprecated, renamed: "StytchConfiguration")
public typealias StytchSettings = StytchConfiguration

extension StytchConfiguration {
    /// Renamed: every configuration reads settings with `init(settings:)`.
    @available(*, deprecated, renamed: "init(settings:)")
    public init(_ settings: ProviderSettings) throws(AuthError) {
        try self.init(settings: settings)
    }
}
