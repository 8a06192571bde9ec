internal import Foundation

/// Everything persisted about a session: tokens, the five objects, when it was last
/// validated, and which provider wrote it.
///
/// Stored formats (the first bytes tell them apart):
/// - **3**: format 2 followed by the token sets kept for other audiences or scopes
///   (``tokenSets``): a count, then each set's audience, scope and tokens. Written only
///   when there are any, so a build that reads format 2 only refuses such a record and
///   leaves it in place.
/// - **2** (written by every current build): binary — the magic `89 4C 4B 56` ("\x89LKV"), the
///   format as a little-endian `UInt16`, a 64-bit ``VaultChecksum`` of the body, then the
///   body (``encoded()``): provider, tokens, last validation, a byte of which objects
///   follow, the JSON block, the objects. Strings are a little-endian `UInt32` length
///   (`UInt32.max`: absent) and their UTF-8 bytes, times a flag and the bits of a
///   `Double` (seconds since 1970). The provider's own objects (`raw`, authentication
///   factors) are compact JSON texts, back to back in the JSON block, which the objects
///   refer to by offset and length; they are parsed only when the app reads them
///   (``DeferredJSON``).
/// - **1**: a JSON object with a `"format": 1` member; still read, never written.
///
/// A record of a newer format, or of another provider or endpoint, is refused and left in
/// place. The provider field holds the ``EndpointIdentity`` the record was made with
/// (``EndpointIdentity/encoded``); a bare provider name is a record from before sessions
/// were bound, used as is and bound when next saved.
struct VaultRecord: Sendable, Hashable {
    /// The format this build writes. A record with a higher number is refused.
    static let currentFormat = 3

    /// The most token sets kept beside the session's own: the oldest goes first.
    static let maximumTokenSets = 16

    var provider: String
    var tokens: SessionTokens
    var session: Session?
    var user: User?
    var memberSession: MemberSession?
    var member: Member?
    var organization: Organization?
    var lastValidatedAt: Date?
    /// Tokens for other audiences or scopes, beside the session's own (providers that keep
    /// them apart: ``AuthProvider/keepsTokenSetsApart``). A new login starts without any.
    var tokenSets: [TokenSet] = []

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

    /// A record of tokens alone, its objects to be read into it (the format-2 decode:
    /// building it from an ``AuthenticatedSession`` costs ~2.4k instructions a load).
    init(provider: String, tokens: SessionTokens, lastValidatedAt: Date?) {
        self.provider = provider
        self.tokens = tokens
        self.lastValidatedAt = lastValidatedAt
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
        AuthenticatedSession(
            tokens: tokens, session: session, user: user, memberSession: memberSession, member: member,
            organization: organization)
    }

    // MARK: Decoding

    /// Decodes a record written by provider `expectedProvider`, in any format up to
    /// ``currentFormat``.
    ///
    /// - Throws: ``VaultError`` for a record of another provider, a newer format, or
    ///   one that does not decode (truncated, damaged, not a record).
    static func decode(_ bytes: [UInt8], expectedProvider: String) throws(VaultError) -> VaultRecord {
        if BinaryHeader.hasMagic(bytes) { return try decodeBinary(bytes, expectedProvider: expectedProvider) }
        return try decodeJSON(bytes, expectedProvider: expectedProvider)
    }

    static func newerFormat(_ format: Int) -> VaultError {
        VaultError(description: "the stored session has format \(format), newer than this build's \(currentFormat); it was left untouched")
    }

    /// Checks that a record stored under `provider` (an ``EndpointIdentity/encoded``
    /// identity) may be used by a vault expecting `expected`.
    ///
    /// - Throws: ``VaultError`` naming the other provider, or the endpoint setting that differs.
    static func checkBinding(_ provider: String, expected: String) throws(VaultError) {
        guard provider != expected else { return }
        if let conflict = EndpointIdentity(encoded: expected).conflict(withStored: EndpointIdentity(encoded: provider)) {
            throw VaultError(description: conflict, isBindingConflict: true)
        }
    }
}
