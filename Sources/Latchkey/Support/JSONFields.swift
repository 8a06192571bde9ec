internal import Foundation
internal import LatchkeyJSON

/// Strict reads of the vault's format-1 (JSON) records, which builds before format 2
/// wrote and which are still read (see ``VaultRecord``). Unlike LatchkeyJSON's readers,
/// which they are made of, a member of the wrong type is an error, not a `nil`: a stored
/// record is ours, and one that does not read as written is damaged.
extension JSONObject {
    /// The string member `name`, or `nil` when absent or `null`.
    ///
    /// - Throws: ``VaultError`` when the member has another type.
    func recordString(_ name: String) throws(VaultError) -> String? {
        guard isPresent(name) else { return nil }
        guard let value = string(name) else { throw VaultError.malformed("member \"\(name)\" is not a string") }
        return value
    }

    /// The string member `name`, which must be present.
    func requiredRecordString(_ name: String) throws(VaultError) -> String {
        guard let value = try recordString(name) else { throw VaultError.malformed("member \"\(name)\" is missing") }
        return value
    }

    /// The member `name` as a date (seconds since 1970), or `nil` when absent or `null`.
    func recordDate(_ name: String) throws(VaultError) -> Date? {
        guard isPresent(name) else { return nil }
        guard let value = number(name) else { throw VaultError.malformed("member \"\(name)\" is not a time") }
        return Date(timeIntervalSince1970: value)
    }

    /// The member `name` as an object, or `nil` when absent or `null`.
    func recordObject(_ name: String) throws(VaultError) -> JSONObject? {
        guard isPresent(name) else { return nil }
        guard let value = object(name) else { throw VaultError.malformed("member \"\(name)\" is not an object") }
        return value
    }

    /// The member `name` as an array, or empty when absent or `null`.
    func recordArray(_ name: String) throws(VaultError) -> [JSONValue] {
        guard isPresent(name) else { return [] }
        guard let value = array(name) else { throw VaultError.malformed("member \"\(name)\" is not an array") }
        return value
    }

    /// The member `name` as an array of strings, or empty when absent or `null`.
    func recordStrings(_ name: String) throws(VaultError) -> [String] {
        var result: [String] = []
        for element in try recordArray(name) {
            guard case .string(let value) = element else { throw VaultError.malformed("member \"\(name)\" holds a non-string") }
            result.append(value)
        }
        return result
    }
}

/// A model the vault's format-1 (JSON) records hold.
protocol VaultRecordCodable {
    /// Decodes a model from its format-1 form.
    init(vaultObject: JSONObject) throws(VaultError)
}
