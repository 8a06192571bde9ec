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
    /// Whether to sender-constrain tokens with DPoP (RFC 9449): a P-256 key pair kept in
    /// the adapter's store, a signed proof with every token request and every request
    /// carrying the access token. Required when the application has "Require Sender
    /// Constraining" on. Default `false`.
    public var dpop: Bool = false

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
        .init("base_url", .url, summary: "overrides https://<domain>/ (http only for loopback addresses)"),
        .init("dpop", .boolean, summary: "sign token requests and API calls with DPoP proofs (RFC 9449; default false)"),
    ])

    /// Creates a configuration from values.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when `baseURL` is plain http to a host
    ///   other than a loopback address.
    public init(baseURL: URL, clientID: String, clientSecret: String? = nil, audience: String? = nil, scope: String? = nil,
                organization: String? = nil, leeway: TimeInterval = 60, dpop: Bool = false) throws(AuthError) {
        try SecureURL.check(baseURL, what: "the Auth0 base URL")
        guard !clientID.isEmpty else { throw AuthError(.configuration, "the Auth0 client ID is empty") }
        guard leeway >= 0, leeway.isFinite else { throw AuthError(.configuration, "the Auth0 leeway must be zero or more seconds") }
        self.dpop = dpop
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
        let dpop = try settings.boolean("dpop") ?? false
        do {
            try self.init(baseURL: baseURL, clientID: clientID, clientSecret: settings["client_secret"], audience: settings["audience"],
                          scope: settings["scope"], organization: settings["organization"], leeway: leeway, dpop: dpop)
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

    func endpoint(_ path: String) -> URL {
        baseURL.appending(path: path)
    }
}
