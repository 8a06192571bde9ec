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
    public var raw: JSONObject

    /// Creates an organization.
    public init(id: String, name: String? = nil, slug: String? = nil, raw: JSONObject = [:]) {
        self.id = id
        self.name = name
        self.slug = slug
        self.raw = raw
    }
}

extension Organization: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(id: try object.requiredString("id"), name: try object.string("name"), slug: try object.string("slug"),
                  raw: try object.object("raw") ?? [:])
    }

    var vaultObject: JSONObject {
        var object: JSONObject = ["id": .string(id)]
        object.set("name", name)
        object.set("slug", slug)
        object["raw"] = .object(raw)
        return object
    }
}
