internal import LatchkeyCrypto
import LatchkeyJSON

extension JWK {
    /// The members RFC 7638 §3.2 hashes for each key type, in their sorted order.
    private static let thumbprintMembers: [(keyType: String, members: [String])] = [
        ("EC", ["crv", "kty", "x", "y"]),
        ("RSA", ["e", "kty", "n"]),
        ("OKP", ["crv", "kty", "x"]),
        ("oct", ["k", "kty"]),
    ]

    /// The key's JWK SHA-256 thumbprint (RFC 7638), base64url without padding: the hash
    /// of the key type's required members only, sorted, without whitespace — so a key's
    /// `kid`, `alg`, `use` or private members never change it. DPoP (RFC 9449) binds
    /// tokens to it (`cnf.jkt`).
    ///
    /// - Throws: ``JWTError/Code/invalidKey`` for an unknown key type or a required
    ///   member that is missing or not a string.
    public func thumbprint() throws -> String {
        guard let entry = Self.thumbprintMembers.first(where: { sameCodeUnits($0.keyType, keyType) }) else {
            throw JWTError.invalidKey("no thumbprint for kty \"\(keyType)\" (RSA, EC, OKP, oct)")
        }
        var canonical = "{"
        for (index, name) in entry.members.enumerated() {
            guard let value = object[name]?.stringValue else {
                throw JWTError.invalidKey("the \(keyType) JWK lacks the string member \"\(name)\" its thumbprint needs")
            }
            if index > 0 { canonical += "," }
            canonical += "\"\(name)\":" + JSONValue.string(value).jsonText
        }
        canonical += "}"
        return Base64URL.encode(HashAlgorithm.sha256.hash(Array(canonical.utf8)))
    }
}
