/// What a renewal is asked to do. The core hands it to
/// ``AuthProvider/prepareRenewal(_:current:)`` and ``AuthProvider/renew(_:current:preparation:)``.
///
/// Callers share a renewal already in flight only when it gives them what they ask
/// (``isSatisfied(by:)-(RenewalRequest)``): the same scope and audience, and the same extension when
/// they ask for one. Otherwise their renewal runs after it.
public struct RenewalRequest: Sendable, Hashable, CustomStringConvertible {
    /// Why the session is being renewed.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The access token expires soon or has expired (on demand or on schedule).
        public static let expiring = Reason("expiring")
        /// The app's API or the provider refused the access token (a 401).
        public static let rejected = Reason("rejected")
        /// The app asked for a renewal now (``AuthClient/renew(sessionDuration:)``).
        public static let forced = Reason("forced")
        /// The app asked to extend the session (``RenewalRequest/sessionDuration``).
        public static let extend = Reason("extend")
        /// The app asked for a token with another scope or audience.
        public static let scope = Reason("scope")

        public var description: String { name }
    }

    /// Why.
    public var reason: Reason
    /// Extend the session by this much (providers with session durations).
    public var sessionDuration: Duration?
    /// The scope the new access token must carry (space-separated); `nil`: as before.
    public var scope: String?
    /// The audience the new access token is for; `nil`: as before.
    public var audience: String?

    /// Creates a request.
    public init(reason: Reason, sessionDuration: Duration? = nil, scope: String? = nil, audience: String? = nil) {
        self.reason = reason
        self.sessionDuration = sessionDuration
        self.scope = scope
        self.audience = audience
    }

    /// Whether a renewal made for `other` gives this caller what it asks.
    public func isSatisfied(by other: RenewalRequest) -> Bool {
        guard Self.sameScope(scope, other.scope), audience == other.audience else { return false }
        guard let sessionDuration else { return true }
        return other.sessionDuration == sessionDuration
    }

    /// Whether the token set already has what this request asks of scope and audience.
    /// An extension is never "already there".
    public func isSatisfied(by tokens: SessionTokens) -> Bool {
        guard sessionDuration == nil else { return false }
        if let scope, !Self.sameScope(scope, tokens.scope) { return false }
        if let audience, audience != tokens.audience { return false }
        return true
    }

    /// Scopes compare as sets of space-separated items.
    static func sameScope(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return Set(a.split(separator: " ")) == Set(b.split(separator: " "))
    }

    public var description: String {
        var parts = ["\(reason)"]
        if let sessionDuration { parts.append("duration: \(sessionDuration)") }
        if let scope { parts.append("scope: \(scope)") }
        if let audience { parts.append("audience: \(audience)") }
        return "RenewalRequest(\(parts.joined(separator: ", ")))"
    }
}

/// What ``AuthProvider/prepareRenewal(_:current:)`` gathered from the app for the
/// renewal that follows: usually a credential (a social.plus auth token). The
/// credential is a secret: ``description`` redacts it.
public struct RenewalPreparation: Sendable, Hashable, CustomStringConvertible {
    /// A credential from the app, e.g. a fresh auth token; `nil`: renew without one.
    public var credential: String?
    /// Other values for the renewal (not secret).
    public var values: [String: String]

    /// Creates a preparation.
    public init(credential: String? = nil, values: [String: String] = [:]) {
        self.credential = credential
        self.values = values
    }

    public var description: String {
        "RenewalPreparation(credential: \(credential.map(Redacted.describe) ?? "none"), values: \(values.keys.sorted()))"
    }
}
