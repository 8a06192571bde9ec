internal import Foundation
internal import LatchkeyJSON

/// Everything persisted about a session: tokens, the five objects, when it was last
/// validated, and which provider and format wrote it.
struct VaultRecord: Sendable, Hashable {
    /// The format this build writes. A record with a higher number is refused.
    static let currentFormat = 1

    var format: Int = VaultRecord.currentFormat
    var provider: String
    var tokens: SessionTokens
    var session: Session?
    var user: User?
    var memberSession: MemberSession?
    var member: Member?
    var organization: Organization?
    var lastValidatedAt: Date?

    /// A record for a fresh login.
    init(provider: String, authenticated: AuthenticatedSession, validatedAt: Date?) {
        self.provider = provider
        tokens = authenticated.tokens
        session = authenticated.session
        user = authenticated.user
        memberSession = authenticated.memberSession
        member = authenticated.member
        organization = authenticated.organization
        lastValidatedAt = validatedAt
    }

    /// This record updated with a validation or renewal report: its tokens (their
    /// attributes merged key by key, new over old), and the objects it reports (those it
    /// leaves `nil` are kept) — the one rule of ``AuthenticatedSession``.
    func merging(_ report: AuthenticatedSession, validatedAt: Date, tokens useTokens: Bool = true) -> VaultRecord {
        var record = self
        if useTokens {
            let previous = record.tokens.attributes
            record.tokens = report.tokens
            record.tokens.attributes = previous.merging(report.tokens.attributes) { _, new in new }
        }
        if let session = report.session { record.session = session }
        if let user = report.user { record.user = user }
        if let memberSession = report.memberSession { record.memberSession = memberSession }
        if let member = report.member { record.member = member }
        if let organization = report.organization { record.organization = organization }
        record.lastValidatedAt = validatedAt
        return record
    }

    /// The record as the provider sees it.
    var authenticated: AuthenticatedSession {
        AuthenticatedSession(tokens: tokens, session: session, user: user, memberSession: memberSession, member: member,
                             organization: organization)
    }

    // MARK: Encoding

    /// The record as compact JSON bytes.
    func encoded() -> [UInt8] {
        var object: JSONObject = ["format": .number(Double(format)), "provider": .string(provider), "tokens": .object(tokens.vaultObject)]
        if let session { object["session"] = .object(session.vaultObject) }
        if let user { object["user"] = .object(user.vaultObject) }
        if let memberSession { object["member_session"] = .object(memberSession.vaultObject) }
        if let member { object["member"] = .object(member.vaultObject) }
        if let organization { object["organization"] = .object(organization.vaultObject) }
        object.set("last_validated_at", lastValidatedAt)
        return JSONValue.object(object).jsonBytes
    }

    /// Decodes a record written by provider `expectedProvider`.
    ///
    /// - Throws: ``VaultError`` for a record of another provider, a newer format, or
    ///   one that does not decode.
    static func decode(_ bytes: [UInt8], expectedProvider: String) throws(VaultError) -> VaultRecord {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: bytes) } catch {
            throw VaultError.malformed("not JSON")
        }
        guard case .object(let object) = value else { throw VaultError.malformed("not a JSON object") }
        guard case .number(let formatNumber)? = object["format"], let format = Int(exactly: formatNumber), format >= 1 else {
            throw VaultError.malformed("no format version")
        }
        guard format <= currentFormat else {
            throw VaultError(description: "the stored session has format \(format), newer than this build's \(currentFormat); it was left untouched")
        }
        let provider = try object.requiredString("provider")
        guard provider == expectedProvider else {
            throw VaultError(description: "the stored session belongs to provider \"\(provider)\", not \"\(expectedProvider)\"; it was left untouched")
        }
        guard let tokensObject = try object.object("tokens") else { throw VaultError.malformed("no tokens") }
        var record = VaultRecord(provider: provider, authenticated: AuthenticatedSession(tokens: try SessionTokens(vaultObject: tokensObject)),
                                 validatedAt: try object.date("last_validated_at"))
        record.format = format
        record.session = try object.object("session").map { (o) throws(VaultError) in try Session(vaultObject: o) }
        record.user = try object.object("user").map { (o) throws(VaultError) in try User(vaultObject: o) }
        record.memberSession = try object.object("member_session").map { (o) throws(VaultError) in try MemberSession(vaultObject: o) }
        record.member = try object.object("member").map { (o) throws(VaultError) in try Member(vaultObject: o) }
        record.organization = try object.object("organization").map { (o) throws(VaultError) in try Organization(vaultObject: o) }
        return record
    }
}
