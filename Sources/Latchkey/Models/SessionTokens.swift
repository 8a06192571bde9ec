public import Foundation
internal import LatchkeyJSON

/// The credentials of a session. They are secrets: ``description`` and every log line
/// show a redacted form (which tokens are present, their lengths and the expiry), never
/// a token.
///
/// Which fields a provider fills:
/// - Stytch: ``accessToken`` = `session_jwt` (5-minute lifetime), ``sessionToken`` =
///   `session_token` (the long-lived credential that renews the JWT).
/// - Auth0: ``accessToken`` = `access_token`, ``refreshToken`` (rotating), ``idToken``.
/// - social.plus: ``accessToken`` with ``issuedAt`` and ``expiresAt``; no refresh token
///   (renewal logs in again).
public struct SessionTokens: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The bearer credential ``AuthClient/accessToken(minTTL:scope:audience:)`` hands out.
    public var accessToken: String
    /// A long-lived opaque session token, for providers that have one (Stytch).
    public var sessionToken: String?
    /// An OAuth refresh token, for providers that have one (Auth0).
    public var refreshToken: String?
    /// An OpenID Connect ID token, for providers that issue one (Auth0).
    public var idToken: String?
    /// When ``accessToken`` was issued, when known.
    public var issuedAt: Date?
    /// When ``accessToken`` stops being accepted, when known.
    public var expiresAt: Date?
    /// Extra provider values worth persisting (e.g. the granted `scope`). Not secret.
    public var attributes: [String: String]

    /// Creates a token set.
    public init(
        accessToken: String, sessionToken: String? = nil, refreshToken: String? = nil, idToken: String? = nil,
        issuedAt: Date? = nil, expiresAt: Date? = nil, attributes: [String: String] = [:]
    ) {
        self.accessToken = accessToken
        self.sessionToken = sessionToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.attributes = attributes
    }

    /// The scope the access token was granted (`attributes["scope"]`), when known.
    public var scope: String? {
        get { attributes["scope"] }
        set { attributes["scope"] = newValue }
    }

    /// The audience the access token is for (`attributes["audience"]`), when known.
    public var audience: String? {
        get { attributes["audience"] }
        set { attributes["audience"] = newValue }
    }

    /// The time left before ``expiresAt`` at `now`; `nil` when the expiry is unknown.
    public func timeToLive(at now: Date) -> TimeInterval? {
        expiresAt.map { $0.timeIntervalSince(now) }
    }

    /// Whether the access token is still good for at least `minTTL` at `now`. A token
    /// without a known expiry counts as valid (the server will say when it is not).
    public func isValid(for minTTL: TimeInterval, at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) >= minTTL
    }

    /// Whether `other` carries the same credentials. Times are left out: they pass
    /// through the vault as seconds since 1970, which need not round-trip a `Date` to
    /// the last bit, and two token sets with the same tokens are the same session state.
    func hasSameCredentials(as other: SessionTokens) -> Bool {
        accessToken == other.accessToken && refreshToken == other.refreshToken && sessionToken == other.sessionToken
            && idToken == other.idToken
    }

    /// A redacted summary, e.g. `SessionTokens(access: ‹redacted, 812 bytes›, refresh: ‹redacted, 64 bytes›, expires: 2026-11-22T21:05:00Z)`.
    public var description: String {
        var parts = ["access: \(Redacted.describe(accessToken))"]
        if let sessionToken { parts.append("session: \(Redacted.describe(sessionToken))") }
        if let refreshToken { parts.append("refresh: \(Redacted.describe(refreshToken))") }
        if let idToken { parts.append("id: \(Redacted.describe(idToken))") }
        if let expiresAt { parts.append("expires: \(expiresAt.formatted(.iso8601))") }
        return "SessionTokens(\(parts.joined(separator: ", ")))"
    }

    /// The same redacted summary as ``description``.
    public var debugDescription: String { description }
}

extension SessionTokens: CustomReflectable {
    /// Reflection (`dump`, debuggers, crash reports) sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}

extension SessionTokens: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        var attributes: [String: String] = [:]
        for member in try object.recordObject("attributes") ?? [:] {
            guard case .string(let value) = member.value else { throw VaultError.malformed("token attribute \"\(member.name)\" is not a string") }
            attributes[member.name] = value
        }
        self.init(
            accessToken: try object.requiredRecordString("access_token"), sessionToken: try object.recordString("session_token"),
            refreshToken: try object.recordString("refresh_token"), idToken: try object.recordString("id_token"),
            issuedAt: try object.recordDate("issued_at"), expiresAt: try object.recordDate("expires_at"), attributes: attributes)
    }
}
