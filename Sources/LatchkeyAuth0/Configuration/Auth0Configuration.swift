public import Foundation
public import Latchkey

/// The settings of an Auth0 application, read from ``/Latchkey/ProviderSettings`` and checked:
/// the tenant's base URL (TLS unless it is a loopback address), the client, and what
/// every login asks for.
public struct Auth0Configuration: Sendable, Hashable {
    /// The tenant's base URL with a trailing slash (`https://tenant.eu.auth0.com/`): the
    /// ID tokens' issuer and the root of every endpoint.
    public var baseURL: URL
    /// The application's client ID.
    public var clientID: String
    /// The client secret, for confidential clients; sent with refresh and revoke.
    public var clientSecret: String?
    /// The API the access tokens are for, when the app asks for one.
    public var audience: String?
    /// The scope asked at login; always contains `openid`.
    public var scope: String
    /// The organization (`org_…` ID or name) the user must sign in to, when set.
    public var organization: String?
    /// The clock skew allowed on ID-token times, in seconds.
    public var leeway: TimeInterval
    /// Where the browser login redirects: `http://127.0.0.1:<port>/<path>` on a fixed port.
    /// Register ``/Latchkey/LoopbackRedirect/absoluteString`` exactly in the application's
    /// Allowed Callback URLs: Auth0 matches them exactly, port included, and refuses any
    /// other at `/authorize`. `nil`: the browser login is refused with a configuration error.
    public var redirectURI: LoopbackRedirect?

    /// The scope asked when the settings name none.
    public static let defaultScope = "openid profile email offline_access"

    /// The settings an Auth0 adapter takes.
    public static let schema = ProviderSettingsSchema([
        .init("domain", required: true, summary: "the tenant's domain, e.g. tenant.eu.auth0.com"),
        .init("client_id", required: true, summary: "the application's client ID"),
        .init("client_secret", secret: true, summary: "the client secret of a confidential application (environment or file only)"),
        .init("audience", summary: "the API the access tokens are for"),
        .init("scope", summary: "the scope asked at login (default \"\(defaultScope)\"; openid is always added)"),
        .init("organization", summary: "the organization (org_ ID or name) users sign in to"),
        .init("leeway_seconds", .integer, summary: "the clock skew allowed on ID-token times (default 60)"),
        .init("redirect_uri", summary: "the browser login's loopback redirect on a fixed port, e.g. http://127.0.0.1:53682/callback; register it exactly (port included) in the application's Allowed Callback URLs"),
        .init("base_url", .url, summary: "overrides https://<domain>/ (http only for loopback addresses)"),
    ])

    /// Creates a configuration from values.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when `baseURL` is plain http to a host
    ///   other than a loopback address.
    public init(baseURL: URL, clientID: String, clientSecret: String? = nil, audience: String? = nil, scope: String? = nil,
                organization: String? = nil, leeway: TimeInterval = 60, redirectURI: LoopbackRedirect? = nil) throws(AuthError) {
        guard let scheme = baseURL.scheme?.lowercased(), let host = baseURL.host(), !host.isEmpty else {
            throw AuthError(.configuration, "the Auth0 base URL is not an absolute URL")
        }
        guard scheme == "https" || (scheme == "http" && Self.isLoopback(host)) else {
            throw AuthError(.configuration, "the Auth0 base URL must use https (plain http is allowed only for a loopback address)")
        }
        guard !clientID.isEmpty else { throw AuthError(.configuration, "the Auth0 client ID is empty") }
        guard leeway >= 0, leeway.isFinite else { throw AuthError(.configuration, "the Auth0 leeway must be zero or more seconds") }
        var text = baseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let normalized = URL(string: text) else { throw AuthError(.configuration, "the Auth0 base URL is not an absolute URL") }
        self.baseURL = normalized
        self.clientID = clientID
        self.clientSecret = clientSecret.flatMap { $0.isEmpty ? nil : $0 }
        self.audience = audience.flatMap { $0.isEmpty ? nil : $0 }
        self.scope = Self.withOpenID(scope ?? Self.defaultScope)
        self.organization = organization.flatMap { $0.isEmpty ? nil : $0 }
        self.leeway = leeway
        self.redirectURI = redirectURI
    }

    /// Reads the settings (already checked against ``schema``).
    ///
    /// - Parameters:
    ///   - settings: the provider settings (`domain`, `client_id`, …).
    ///   - defaultLeeway: the leeway when `leeway_seconds` is absent (the
    ///     session options' leeway).
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` naming the offending key.
    public init(settings: ProviderSettings, defaultLeeway: TimeInterval = 60) throws(AuthError) {
        let domain = try settings.required("domain")
        let clientID = try settings.required("client_id")
        let baseURL: URL
        if let override = try settings.url("base_url") {
            baseURL = override
        } else {
            let trimmed = domain.hasPrefix("https://") ? String(domain.dropFirst(8)) : domain
            guard !trimmed.contains("/") || trimmed.hasSuffix("/"), let url = URL(string: "https://" + trimmed) else {
                throw AuthError(.configuration, "setting \"settings.domain\" for provider \"auth0\" is not a domain name")
            }
            baseURL = url
        }
        var leeway = defaultLeeway
        if let seconds = try settings.integer("leeway_seconds") {
            guard seconds >= 0 else { throw AuthError(.configuration, "setting \"settings.leeway_seconds\" for provider \"auth0\" must not be negative") }
            leeway = TimeInterval(seconds)
        }
        var redirectURI: LoopbackRedirect?
        if let text = settings["redirect_uri"] {
            do { redirectURI = try LoopbackRedirect(text) } catch {
                throw AuthError(.configuration, "setting \"settings.redirect_uri\" for provider \"auth0\": \(error.message)")
            }
        }
        do {
            try self.init(baseURL: baseURL, clientID: clientID, clientSecret: settings["client_secret"], audience: settings["audience"],
                          scope: settings["scope"], organization: settings["organization"], leeway: leeway, redirectURI: redirectURI)
        } catch {
            throw AuthError(.configuration, "setting \"settings.\(settings["base_url"] == nil ? "domain" : "base_url")\" for provider \"auth0\": \(error.message)")
        }
    }

    /// The ID tokens' `iss`: the base URL, trailing slash included.
    public var issuer: String { baseURL.absoluteString }

    /// `scope` with `openid` added when missing, items in their order, duplicates dropped.
    public static func withOpenID(_ scope: String) -> String {
        var items: [Substring] = []
        for item in scope.split(separator: " ") where !items.contains(item) { items.append(item) }
        if !items.contains("openid") { items.insert("openid", at: 0) }
        return items.joined(separator: " ")
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    func endpoint(_ path: String) -> URL {
        baseURL.appending(path: path)
    }
}
