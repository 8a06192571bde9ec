public import Foundation
public import LatchkeyJSON

/// A B2B member session (Stytch B2B `member_session`), in a provider-neutral form.
public struct MemberSession: Sendable, Hashable {
    /// The provider's identifier of the session (`member_session_id`).
    public var id: String
    /// The member the session belongs to.
    public var memberID: String
    /// The organization the member signed in to.
    public var organizationID: String
    /// The organization's slug, when reported.
    public var organizationSlug: String?
    /// When the session started.
    public var startedAt: Date?
    /// When the provider last saw the session used.
    public var lastAccessedAt: Date?
    /// When the session ends unless it is extended.
    public var expiresAt: Date?
    /// How the member authenticated, as the provider reports it.
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

    /// Creates a member session.
    public init(
        id: String, memberID: String, organizationID: String, organizationSlug: String? = nil,
        startedAt: Date? = nil, lastAccessedAt: Date? = nil, expiresAt: Date? = nil,
        authenticationFactors: [JSONValue] = [], roles: [String] = [], raw: JSONObject = [:]
    ) {
        self.init(
            id: id, memberID: memberID, organizationID: organizationID, organizationSlug: organizationSlug,
            startedAt: startedAt, lastAccessedAt: lastAccessedAt, expiresAt: expiresAt,
            factorsJSON: DeferredJSON(.array(authenticationFactors)), roles: roles, rawJSON: DeferredJSON(.object(raw)))
    }

    init(
        id: String, memberID: String, organizationID: String, organizationSlug: String?, startedAt: Date?, lastAccessedAt: Date?,
        expiresAt: Date?, factorsJSON: DeferredJSON, roles: [String], rawJSON: DeferredJSON
    ) {
        self.id = id
        self.memberID = memberID
        self.organizationID = organizationID
        self.organizationSlug = organizationSlug
        self.startedAt = startedAt
        self.lastAccessedAt = lastAccessedAt
        self.expiresAt = expiresAt
        self.factorsJSON = factorsJSON
        self.roles = roles
        self.rawJSON = rawJSON
    }
}

extension MemberSession: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(
            id: try object.requiredRecordString("id"), memberID: try object.requiredRecordString("member_id"),
            organizationID: try object.requiredRecordString("organization_id"), organizationSlug: try object.recordString("organization_slug"),
            startedAt: try object.recordDate("started_at"), lastAccessedAt: try object.recordDate("last_accessed_at"),
            expiresAt: try object.recordDate("expires_at"), authenticationFactors: try object.recordArray("authentication_factors"),
            roles: try object.recordStrings("roles"), raw: try object.recordObject("raw") ?? [:])
    }
}
