/// Why a stored vault record cannot be used. Reported as ``AuthError/Code/vaultIncompatible``.
struct VaultError: Error, Sendable, CustomStringConvertible {
    let description: String
    /// The record is bound to another provider or endpoint: it belongs to another
    /// configuration's client, which alone may use or remove it.
    var isBindingConflict = false

    static func malformed(_ detail: String) -> VaultError { VaultError(description: "the stored session is malformed: \(detail)") }
}
