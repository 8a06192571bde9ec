public import Foundation
public import Latchkey

/// The settings of an Auth0 application, read from ``/Latchkey/ProviderSettings`` and checked:
/// the tenant's domain (the ID tokens' issuer), where requests go (TLS unless it is a
/// loopback address), the client, and what every login asks for.
public struct Auth0Configuration: Sendable, Hashable {
    /// Where every request goes, with a trailing slash: `https://{domain}/`, or the
    /// `base_url` override (a proxy, a gateway, the emulator).
    public var baseURL: URL
    /// The `iss` every ID token must carry: `https://{domain}/` — whatever URL the
    /// requests go to — or the `issuer` setting. Never derived from ``baseURL``.
    public var issuer: String
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
    /// Where the browser login redirects: `http://127.0.0.1:<port>/<path>` on a fixed port.
    /// Register ``/Latchkey/LoopbackRedirect/absoluteString`` exactly in the application's
    /// Allowed Callback URLs: Auth0 matches them exactly, port included, and refuses any
    /// other at `/authorize`. `nil`: the browser login is refused with a configuration error.
    public var redirectURI: LoopbackRedirect?

    /// The scope asked when the settings name none.
    public static let defaultScope = "openid profile email offline_access"

    /// The settings an Auth0 adapter takes.
    public static let schema = ProviderSettingsSchema([
        .init("domain", required: true, summary: "the tenant's domain, e.g. tenant.eu.auth0.com; the ID tokens' issuer is https://<domain>/"),
        .init("client_id", required: true, summary: "the application's client ID"),
        .init("client_secret", secret: true, summary: "the client secret of a confidential application (environment or file only)"),
        .init("audience", summary: "the API the access tokens are for"),
        .init("scope", summary: "the scope asked at login (default \"\(defaultScope)\"; openid is always added)"),
        .init("organization", summary: "the organization (org_ ID or name) users sign in to"),
        .init("leeway_seconds", .integer, summary: "the clock skew allowed on ID-token times (default 60)"),
        .init(
            "base_url", .url,
            summary:
                "where requests go instead of https://<domain>/ (a proxy, the emulator; http only for loopback addresses); the issuer stays https://<domain>/"
        ),
        .init("issuer", summary: "the ID tokens' iss when it is not https://<domain>/ (an https URL)"),
        .init("dpop", .boolean, summary: "sign token requests and API calls with DPoP proofs (RFC 9449; default false)"),
        .init(
            "redirect_uri",
            summary:
                "the browser login's loopback redirect on a fixed port, e.g. http://127.0.0.1:53682/callback; register it exactly (port included) in the application's Allowed Callback URLs"
        ),
    ])

    /// Creates a configuration from values.
    ///
    /// - Parameters:
    ///   - domain: the tenant's domain (`tenant.eu.auth0.com`, an `https://` prefix allowed).
    ///   - clientID: the application's client ID.
    ///   - baseURL: where requests go when not `https://{domain}/`.
    ///   - issuer: the ID tokens' `iss` when not `https://{domain}/`.
    ///   - clientSecret: the application's secret, for a confidential client (a native
    ///     app has none).
    ///   - audience: the API the access tokens are for.
    ///   - scope: the scope asked at login (`openid` is always added).
    ///   - organization: the organization (`org_` ID or name) users sign in to.
    ///   - leeway: the clock skew allowed on ID-token times, in seconds.
    ///   - dpop: sign token requests and API calls with DPoP proofs (RFC 9449).
    ///   - redirectURI: the browser login's loopback redirect (``redirectURI``).
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a domain that is not a host
    ///   name, a `baseURL` that is plain http to a host other than a loopback address, or an
    ///   issuer that is not an https URL.
    public init(
        domain: String, clientID: String, baseURL: URL? = nil, issuer: String? = nil, clientSecret: String? = nil,
        audience: String? = nil, scope: String? = nil, organization: String? = nil, leeway: TimeInterval = 60,
        dpop: Bool = false, redirectURI: LoopbackRedirect? = nil
    ) throws(AuthError) {
        let tenant = try Self.tenantURL(domain)
        let target = baseURL ?? tenant
        do { try SecureURL.check(target, what: "the Auth0 base URL") } catch {
            throw AuthError(.configuration, error.message)
        }
        guard !clientID.isEmpty else { throw AuthError(.configuration, "the Auth0 client ID is empty") }
        guard leeway >= 0, leeway.isFinite else { throw AuthError(.configuration, "the Auth0 leeway must be zero or more seconds") }
        self.dpop = dpop
        var text = target.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let normalized = URL(string: text) else { throw AuthError(.configuration, "the Auth0 base URL is not an absolute URL") }
        if let issuer {
            guard issuer.hasPrefix("https://"), URL(string: issuer)?.host()?.isEmpty == false else {
                throw AuthError(.configuration, "the Auth0 issuer must be an https URL such as https://tenant.eu.auth0.com/")
            }
        }
        self.baseURL = normalized
        self.issuer = issuer ?? tenant.absoluteString
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
        let baseURL = try settings.url("base_url")
        var leeway = defaultLeeway
        if let seconds = try settings.integer("leeway_seconds") {
            guard seconds >= 0 else {
                throw AuthError(.configuration, "setting \"settings.leeway_seconds\" for provider \"auth0\" must not be negative")
            }
            leeway = TimeInterval(seconds)
        }
        do { _ = try Self.tenantURL(domain) } catch {
            throw AuthError(.configuration, "setting \"settings.domain\" for provider \"auth0\": \(error.message)")
        }
        if let issuer = settings["issuer"] {
            guard issuer.hasPrefix("https://"), URL(string: issuer)?.host()?.isEmpty == false else {
                throw AuthError(
                    .configuration, "setting \"settings.issuer\" for provider \"auth0\" must be an https URL such as https://tenant.eu.auth0.com/")
            }
        }
        let dpop = try settings.boolean("dpop") ?? false
        var redirectURI: LoopbackRedirect?
        if let text = settings["redirect_uri"] {
            do { redirectURI = try LoopbackRedirect(text) } catch {
                throw AuthError(.configuration, "setting \"settings.redirect_uri\" for provider \"auth0\": \(error.message)")
            }
        }
        do {
            try self.init(
                domain: domain, clientID: clientID, baseURL: baseURL, issuer: settings["issuer"], clientSecret: settings["client_secret"],
                audience: settings["audience"], scope: settings["scope"], organization: settings["organization"], leeway: leeway,
                dpop: dpop, redirectURI: redirectURI)
        } catch {
            throw AuthError(.configuration, "setting \"settings.\(baseURL == nil ? "domain" : "base_url")\" for provider \"auth0\": \(error.message)")
        }
    }

    /// `https://{domain}/` for a domain given bare or with its `https://` prefix.
    static func tenantURL(_ domain: String) throws(AuthError) -> URL {
        var host = domain.hasPrefix("https://") ? String(domain.dropFirst(8)) : domain
        if host.hasSuffix("/") { host.removeLast() }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), let url = URL(string: "https://" + host + "/"),
            url.host()?.isEmpty == false
        else {
            throw AuthError(.configuration, "\"\(domain)\" is not a domain name such as tenant.eu.auth0.com")
        }
        return url
    }

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
