internal import Foundation
internal import LatchkeyJSON

/// Typed reads of the vault's format-1 (JSON) records, which builds before format 2
/// wrote and which are still read (see ``VaultRecord``).
extension JSONObject {
    /// The string member `name`, or `nil` when absent or `null`.
    ///
    /// - Throws: ``VaultError`` when the member has another type.
    func string(_ name: String) throws(VaultError) -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw VaultError.malformed("member \"\(name)\" is not a string")
        }
    }

    /// The string member `name`, which must be present.
    func requiredString(_ name: String) throws(VaultError) -> String {
        guard let value = try string(name) else { throw VaultError.malformed("member \"\(name)\" is missing") }
        return value
    }

    /// The member `name` as a date (seconds since 1970), or `nil` when absent or `null`.
    func date(_ name: String) throws(VaultError) -> Date? {
        switch self[name] {
        case nil, .null?: return nil
        case .number(let value)? where value.isFinite: return Date(timeIntervalSince1970: value)
        default: throw VaultError.malformed("member \"\(name)\" is not a time")
        }
    }

    /// The member `name` as an object, or `nil` when absent or `null`.
    func object(_ name: String) throws(VaultError) -> JSONObject? {
        switch self[name] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw VaultError.malformed("member \"\(name)\" is not an object")
        }
    }

    /// The member `name` as an array, or empty when absent or `null`.
    func array(_ name: String) throws(VaultError) -> [JSONValue] {
        switch self[name] {
        case nil, .null?: return []
        case .array(let value)?: return value
        default: throw VaultError.malformed("member \"\(name)\" is not an array")
        }
    }

    /// The member `name` as an array of strings, or empty when absent or `null`.
    func strings(_ name: String) throws(VaultError) -> [String] {
        var result: [String] = []
        for element in try array(name) {
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
