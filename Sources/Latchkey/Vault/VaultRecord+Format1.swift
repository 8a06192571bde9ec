internal import Foundation
internal import LatchkeyJSON

/// Format 1: the JSON records every build before format 2 wrote. Read so that a stored
/// session survives the upgrade; the next save writes format 2.
extension VaultRecord {
    static func decodeJSON(_ bytes: [UInt8], expectedProvider: String) throws(VaultError) -> VaultRecord {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: bytes) } catch {
            throw VaultError.malformed("not JSON")
        }
        guard case .object(let object) = value else { throw VaultError.malformed("not a JSON object") }
        guard case .number(let formatNumber)? = object["format"], let format = Int(exactly: formatNumber), format >= 1 else {
            throw VaultError.malformed("no format version")
        }
        guard format <= currentFormat else { throw newerFormat(format) }
        guard format == 1 else { throw VaultError.malformed("format \(format) is not stored as JSON") }
        let provider = try object.requiredRecordString("provider")
        try checkBinding(provider, expected: expectedProvider)
        guard let tokensObject = try object.recordObject("tokens") else { throw VaultError.malformed("no tokens") }
        var record = VaultRecord(
            provider: provider, authenticated: AuthenticatedSession(tokens: try SessionTokens(vaultObject: tokensObject)),
            validatedAt: try object.recordDate("last_validated_at"))
        record.session = try object.recordObject("session").map { (o) throws(VaultError) in try Session(vaultObject: o) }
        record.user = try object.recordObject("user").map { (o) throws(VaultError) in try User(vaultObject: o) }
        record.memberSession = try object.recordObject("member_session").map { (o) throws(VaultError) in try MemberSession(vaultObject: o) }
        record.member = try object.recordObject("member").map { (o) throws(VaultError) in try Member(vaultObject: o) }
        record.organization = try object.recordObject("organization").map { (o) throws(VaultError) in try Organization(vaultObject: o) }
        return record
    }
}
