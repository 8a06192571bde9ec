/// Why a stored vault record cannot be used. Reported as ``AuthError/Code/vaultIncompatible``.
struct VaultError: Error, Sendable, CustomStringConvertible {
    let description: String

    static func malformed(_ detail: String) -> VaultError { VaultError(description: "the stored session is malformed: \(detail)") }
}
