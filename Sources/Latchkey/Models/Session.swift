public import Foundation
public import LatchkeyJSON

/// A consumer session, in a provider-neutral form.
///
/// Stytch reports one with every authenticate call; providers without a session object
/// of their own (Auth0, social.plus) derive one from their tokens.
public struct Session: Sendable, Hashable {
    /// The provider's identifier of the session (Stytch `session_id`); `nil` for
    /// providers whose sessions have none (social.plus).
    public var id: String?
    /// The user the session belongs to.
    public var userID: String
    /// When the session started.
    public var startedAt: Date?
    /// When the provider last saw the session used.
    public var lastAccessedAt: Date?
    /// When the session ends unless it is extended.
    public var expiresAt: Date?
    /// How the user authenticated (Stytch `authentication_factors`), as the provider reports it.
    public var authenticationFactors: [JSONValue] {
        get { factorsJSON.array }
        set { factorsJSON = DeferredJSON(.array(newValue)) }
    }
    /// Roles granted in this session.
    public var roles: [String]
    /// The provider's own JSON object for the session.
    public var raw: JSONObject {
        get { rawJSON.object }
        set { rawJSON = DeferredJSON(.object(newValue)) }
    }
    /// ``authenticationFactors`` and ``raw``, kept as stored JSON until first read when the session comes from the vault.
    var factorsJSON: DeferredJSON
    var rawJSON: DeferredJSON

    /// Creates a session.
    public init(
        id: String?, userID: String, startedAt: Date? = nil, lastAccessedAt: Date? = nil, expiresAt: Date? = nil,
        authenticationFactors: [JSONValue] = [], roles: [String] = [], raw: JSONObject = [:]
    ) {
        self.init(
            id: id, userID: userID, startedAt: startedAt, lastAccessedAt: lastAccessedAt, expiresAt: expiresAt,
            factorsJSON: DeferredJSON(.array(authenticationFactors)), roles: roles, rawJSON: DeferredJSON(.object(raw)))
    }

    init(
        id: String?, userID: String, startedAt: Date?, lastAccessedAt: Date?, expiresAt: Date?, factorsJSON: DeferredJSON,
        roles: [String], rawJSON: DeferredJSON
    ) {
        self.id = id
        self.userID = userID
        self.startedAt = startedAt
        self.lastAccessedAt = lastAccessedAt
        self.expiresAt = expiresAt
        self.factorsJSON = factorsJSON
        self.roles = roles
        self.rawJSON = rawJSON
    }
}

extension Session: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(
            id: try object.recordString("id"), userID: try object.requiredRecordString("user_id"),
            startedAt: try object.recordDate("started_at"), lastAccessedAt: try object.recordDate("last_accessed_at"),
            expiresAt: try object.recordDate("expires_at"), authenticationFactors: try object.recordArray("authentication_factors"),
            roles: try object.recordStrings("roles"), raw: try object.recordObject("raw") ?? [:])
    }
}
