internal import Foundation
public import LatchkeyJSON

/// A member of a B2B organization (Stytch B2B `member`), in a provider-neutral form.
public struct Member: Sendable, Hashable {
    /// The provider's identifier of the member (`member_id`).
    public var id: String
    /// The organization the member belongs to.
    public var organizationID: String
    /// The member's email address.
    public var email: String?
    /// The member's name.
    public var name: String?
    /// The provider's status of the member (e.g. `active`).
    public var status: String?
    /// The provider's own JSON object for the member.
    public var raw: JSONObject {
        get { rawJSON.object }
        set { rawJSON = DeferredJSON(.object(newValue)) }
    }
    /// ``raw``, kept as stored JSON until first read when the member comes from the vault.
    var rawJSON: DeferredJSON

    /// Creates a member.
    public init(
        id: String, organizationID: String, email: String? = nil, name: String? = nil, status: String? = nil,
        raw: JSONObject = [:]
    ) {
        self.id = id
        self.organizationID = organizationID
        self.email = email
        self.name = name
        self.status = status
        rawJSON = DeferredJSON(.object(raw))
    }

    init(id: String, organizationID: String, email: String?, name: String?, status: String?, rawJSON: DeferredJSON) {
        self.id = id
        self.organizationID = organizationID
        self.email = email
        self.name = name
        self.status = status
        self.rawJSON = rawJSON
    }
}

extension Member: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(
            id: try object.requiredRecordString("id"), organizationID: try object.requiredRecordString("organization_id"),
            email: try object.recordString("email"), name: try object.recordString("name"), status: try object.recordString("status"),
            raw: try object.recordObject("raw") ?? [:])
    }
}
