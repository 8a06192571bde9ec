internal import Foundation
public import LatchkeyJSON

/// The signed-in user, in a provider-neutral form.
///
/// Adapters fill the named fields from the provider's user object (Stytch `user`,
/// Auth0 `/userinfo` or ID token claims, social.plus `users[0]`) and keep the whole
/// object in ``raw`` for the fields this model does not name.
public struct User: Sendable, Hashable {
    /// The provider's identifier of the user (Stytch `user_id`, Auth0 `sub`, social.plus `userId`).
    public var id: String
    /// The primary email address, when the provider reports one.
    public var email: String?
    /// The display name, when the provider reports one.
    public var name: String?
    /// The provider's status of the account (e.g. Stytch `active`), when it reports one.
    public var status: String?
    /// The provider's own JSON object for the user.
    public var raw: JSONObject {
        get { rawJSON.object }
        set { rawJSON = DeferredJSON(.object(newValue)) }
    }
    /// ``raw``, kept as stored JSON until first read when the user comes from the vault.
    var rawJSON: DeferredJSON

    /// Creates a user.
    public init(id: String, email: String? = nil, name: String? = nil, status: String? = nil, raw: JSONObject = [:]) {
        self.id = id
        self.email = email
        self.name = name
        self.status = status
        rawJSON = DeferredJSON(.object(raw))
    }

    init(id: String, email: String?, name: String?, status: String?, rawJSON: DeferredJSON) {
        self.id = id
        self.email = email
        self.name = name
        self.status = status
        self.rawJSON = rawJSON
    }
}

extension User: VaultRecordCodable {
    init(vaultObject object: JSONObject) throws(VaultError) {
        self.init(
            id: try object.requiredRecordString("id"), email: try object.recordString("email"), name: try object.recordString("name"),
            status: try object.recordString("status"), raw: try object.recordObject("raw") ?? [:])
    }
}
