internal import Foundation
public import LatchkeyJSON

/// A B2B organization (Stytch B2B `organization`), in a provider-neutral form.
public struct Organization: Sendable, Hashable {
    /// The provider's identifier of the organization (`organization_id`).
    public var id: String
    /// The organization's display name.
    public var name: String?
    /// The organization's slug.
    public var slug: String?
    /// The provider's own JSON object for the organization.
    public var raw: JSONObject {
        get { rawJSON.object }
        set { rawJSON = DeferredJSON(.object(newValue)) }
    }
    /// ``raw``, kept as stored JSON until first read when the organization comes from the vault.
    var rawJSON: DeferredJSON

    /// Creates an organization.
    public init(id: String, name: String? = nil, slug: String? = nil, raw: JSONObject = [:]) {
        self.id = id
        self.name = name
        self.slug = slug
        rawJSON = DeferredJSON(.object(raw))
    }

    init(id: String, name: String?, slug: String?, rawJSON: DeferredJSON) {
        self.id = id
        self.name = name
        self.slug = slug
        self.rawJSON = rawJSON
    }
}

extension Organization: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(
            id: try object.requiredRecordString("id"), name: try object.recordString("name"), slug: try object.recordString("slug"),
            raw: try object.recordObject("raw") ?? [:])
    }
}
