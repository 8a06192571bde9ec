import Foundation
import LatchkeyJSON
import Testing

@testable import Latchkey

/// The vault's record codec: format 2 round trips, format-1 records still load, and
/// records this build must not read are refused.
@Suite struct VaultRecordTests {
    static let magic: [UInt8] = [0x89, 0x4C, 0x4B, 0x56]

    static var full: VaultRecord {
        VaultRecord(provider: VaultSamples.provider, authenticated: VaultSamples.full, validatedAt: VaultSamples.validatedAt)
    }

    @Test func everyFieldRoundTripsThroughFormat2() throws {
        let bytes = Self.full.encoded()
        #expect(Array(bytes.prefix(6)) == Self.magic + [2, 0])
        let decoded = try VaultRecord.decode(bytes, expectedProvider: "stytch")
        #expect(decoded == Self.full)
        #expect(decoded.provider == "stytch")
        #expect(decoded.lastValidatedAt == VaultSamples.validatedAt)
        Self.expectSameFields(decoded)
        #expect(decoded.encoded() == bytes, "an unread record is written back byte for byte")
    }

    @Test func aRecordWithOnlyTokensRoundTrips() throws {
        let tokens = SessionTokens(accessToken: "")
        let record = VaultRecord(provider: "social.plus", authenticated: AuthenticatedSession(tokens: tokens), validatedAt: nil)
        let decoded = try VaultRecord.decode(record.encoded(), expectedProvider: "social.plus")
        #expect(decoded == record)
        #expect(decoded.tokens.sessionToken == nil && decoded.tokens.refreshToken == nil && decoded.tokens.idToken == nil)
        #expect(decoded.tokens.issuedAt == nil && decoded.tokens.expiresAt == nil && decoded.tokens.attributes.isEmpty)
        #expect(decoded.session == nil && decoded.user == nil && decoded.memberSession == nil && decoded.member == nil)
        #expect(decoded.organization == nil && decoded.lastValidatedAt == nil)
    }

    @Test func objectsWithEmptyAndMissingFieldsRoundTrip() throws {
        let session = AuthenticatedSession(
            tokens: SessionTokens(accessToken: "a"), session: Session(id: nil, userID: ""),
            user: User(id: "u"), memberSession: MemberSession(id: "s", memberID: "m", organizationID: "o"),
            member: Member(id: "m", organizationID: "o"), organization: Organization(id: "o"))
        let record = VaultRecord(provider: "stytch", authenticated: session, validatedAt: Date(timeIntervalSince1970: -1.5))
        let decoded = try VaultRecord.decode(record.encoded(), expectedProvider: "stytch")
        #expect(decoded == record)
        #expect(decoded.session?.id == nil)
        #expect(decoded.user?.raw == [:] && decoded.session?.authenticationFactors == [])
        #expect(decoded.lastValidatedAt == Date(timeIntervalSince1970: -1.5))
    }

    @Test func aFormat1RecordWrittenBeforeFormat2LoadsIdentically() throws {
        let bytes = VaultFormat1Fixture.bytes
        #expect(bytes.count == VaultFormat1Fixture.byteCount)
        #expect(bytes.first == UInt8(ascii: "{"))
        let decoded = try VaultRecord.decode(bytes, expectedProvider: "stytch")
        #expect(decoded == Self.full)
        Self.expectSameFields(decoded)
        // The next save writes format 2, which reads back the same.
        let migrated = decoded.encoded()
        #expect(Array(migrated.prefix(4)) == Self.magic)
        #expect(try VaultRecord.decode(migrated, expectedProvider: "stytch") == Self.full)
    }

    @Test func tokenSetsRoundTripThroughFormat3AndOnlyThen() throws {
        var record = Self.full
        let api = SessionTokens(
            accessToken: "api-access", issuedAt: VaultSamples.validatedAt, expiresAt: VaultSamples.validatedAt.addingTimeInterval(60),
            attributes: ["audience": "https://api.example.com"])
        record.tokenSets = [
            TokenSet(audience: "https://api.example.com", scope: nil, tokens: api),
            TokenSet(audience: nil, scope: "openid read", tokens: SessionTokens(accessToken: "narrow")),
        ]
        let bytes = record.encoded()
        #expect(Array(bytes.prefix(6)) == Self.magic + [3, 0])
        let decoded = try VaultRecord.decode(bytes, expectedProvider: "stytch")
        #expect(decoded == record)
        #expect(decoded.tokenSet(serving: RenewalRequest(reason: .scope, audience: "https://api.example.com")) == api)
        #expect(decoded.tokenSet(serving: RenewalRequest(reason: .scope, scope: "read openid"))?.accessToken == "narrow")
        #expect(decoded.tokenSet(serving: RenewalRequest(reason: .scope, audience: "https://other.example.com")) == nil)
        // Without sets the record is format 2, byte for byte as before.
        record.tokenSets = []
        #expect(record.encoded() == Self.full.encoded())
        // A damaged record is refused, not trusted.
        var damaged = bytes
        damaged[bytes.count - 1] ^= 0xFF
        #expect(throws: VaultError.self) { try VaultRecord.decode(damaged, expectedProvider: "stytch") }
    }

    @Test func aNewerFormatIsRefusedAndSaidSo() throws {
        var binary = Self.full.encoded()
        binary[4] = 4
        var json = VaultFormat1Fixture.text
        json.replace(#"{"format":1,"#, with: #"{"format":4,"#)
        for bytes in [binary, Array(json.utf8)] {
            let error = try #require(throws: VaultError.self) { try VaultRecord.decode(bytes, expectedProvider: "stytch") }
            #expect(error.description == "the stored session has format 4, newer than this build's 3; it was left untouched")
        }
        binary[4] = 0
        binary[5] = 1
        let far = try #require(throws: VaultError.self) { try VaultRecord.decode(binary, expectedProvider: "stytch") }
        #expect(far.description.contains("format 256, newer"))
    }

    @Test func formatsStoredInTheOtherEncodingAreMalformed() throws {
        var binary = Self.full.encoded()
        binary[4] = 1
        var json = VaultFormat1Fixture.text
        json.replace(#"{"format":1,"#, with: #"{"format":2,"#)
        for bytes in [binary, Array(json.utf8)] {
            let error = try #require(throws: VaultError.self) { try VaultRecord.decode(bytes, expectedProvider: "stytch") }
            #expect(error.description.hasPrefix("the stored session is malformed"))
        }
    }

    @Test func anotherProvidersRecordIsRefused() throws {
        let record = VaultRecord(provider: "auth0", authenticated: VaultSamples.full, validatedAt: nil)
        for bytes in [record.encoded(), VaultFormat1Fixture.bytes] {
            let error = try #require(throws: VaultError.self) { try VaultRecord.decode(bytes, expectedProvider: "auth0-other") }
            #expect(error.description.hasPrefix("the stored session belongs to provider \""))
            #expect(error.description.hasSuffix(", not \"auth0-other\"; it was left untouched"))
        }
    }

    @Test func deferredProviderObjectsEqualAndHashLikeParsedOnes() throws {
        let decoded = try VaultRecord.decode(Self.full.encoded(), expectedProvider: "stytch")
        let user = try #require(decoded.user)
        // Unread, the deferred objects compare and hash as the parsed originals.
        #expect(user == VaultSamples.user)
        #expect(user.hashValue == VaultSamples.user.hashValue)
        #expect(Set([user, VaultSamples.user]).count == 1)
        let session = try #require(decoded.session)
        #expect(session.hashValue == VaultSamples.session.hashValue)
        #expect(session.authenticationFactors == VaultSamples.session.authenticationFactors)
        #expect(session.raw == VaultSamples.session.raw)
        #expect(session.raw["attributes"]?["user_agent"] == "app \"1.4\"\n")
        #expect(decoded.member?.raw == VaultSamples.member.raw)
        #expect(decoded.organization?.raw == VaultSamples.organization.raw)
        #expect(decoded.memberSession?.raw == VaultSamples.memberSession.raw)
        #expect(decoded.memberSession?.authenticationFactors == VaultSamples.memberSession.authenticationFactors)

        // Writing through the public API replaces the value; copies keep theirs.
        var changed = user
        changed.raw["plan"] = "team"
        #expect(changed.raw["plan"] == "team" && user.raw["plan"] == nil)
        #expect(changed != user)
        var fewer = session
        fewer.authenticationFactors = []
        #expect(fewer != session && fewer.authenticationFactors.isEmpty && session.authenticationFactors.count == 1)

        // Two deferred copies with different bytes are compared by value.
        let other = try VaultRecord.decode(Self.full.encoded(), expectedProvider: "stytch")
        #expect(other.user == user && other.session == session)
        var differentRaw = Self.full
        differentRaw.user?.raw["seats"] = 13
        let reloaded = try VaultRecord.decode(differentRaw.encoded(), expectedProvider: "stytch")
        #expect(reloaded.user != user)
    }

    /// Every field of a decoded ``VaultSamples/fullRecord``, one by one.
    static func expectSameFields(_ decoded: VaultRecord) {
        let tokens = VaultSamples.tokens
        #expect(decoded.tokens.accessToken == tokens.accessToken)
        #expect(decoded.tokens.sessionToken == tokens.sessionToken)
        #expect(decoded.tokens.refreshToken == tokens.refreshToken)
        #expect(decoded.tokens.idToken == tokens.idToken)
        #expect(decoded.tokens.issuedAt == tokens.issuedAt)
        #expect(decoded.tokens.expiresAt == tokens.expiresAt)
        #expect(decoded.tokens.attributes == tokens.attributes)
        #expect(decoded.tokens.scope == "openid profile offline_access")

        let session = VaultSamples.session
        #expect(decoded.session?.id == session.id)
        #expect(decoded.session?.userID == session.userID)
        #expect(decoded.session?.startedAt == session.startedAt)
        #expect(decoded.session?.lastAccessedAt == session.lastAccessedAt)
        #expect(decoded.session?.expiresAt == session.expiresAt)
        #expect(decoded.session?.authenticationFactors == session.authenticationFactors)
        #expect(decoded.session?.roles == session.roles)
        #expect(decoded.session?.raw == session.raw)

        let user = VaultSamples.user
        #expect(decoded.user?.id == user.id)
        #expect(decoded.user?.email == user.email)
        #expect(decoded.user?.name == user.name)
        #expect(decoded.user?.status == user.status)
        #expect(decoded.user?.raw == user.raw)

        let memberSession = VaultSamples.memberSession
        #expect(decoded.memberSession?.id == memberSession.id)
        #expect(decoded.memberSession?.memberID == memberSession.memberID)
        #expect(decoded.memberSession?.organizationID == memberSession.organizationID)
        #expect(decoded.memberSession?.organizationSlug == memberSession.organizationSlug)
        #expect(decoded.memberSession?.startedAt == memberSession.startedAt)
        #expect(decoded.memberSession?.lastAccessedAt == memberSession.lastAccessedAt)
        #expect(decoded.memberSession?.expiresAt == memberSession.expiresAt)
        #expect(decoded.memberSession?.authenticationFactors == memberSession.authenticationFactors)
        #expect(decoded.memberSession?.roles == memberSession.roles)
        #expect(decoded.memberSession?.raw == memberSession.raw)

        let member = VaultSamples.member
        #expect(decoded.member?.id == member.id)
        #expect(decoded.member?.organizationID == member.organizationID)
        #expect(decoded.member?.email == member.email)
        #expect(decoded.member?.name == member.name)
        #expect(decoded.member?.status == member.status)
        #expect(decoded.member?.raw == member.raw)

        let organization = VaultSamples.organization
        #expect(decoded.organization?.id == organization.id)
        #expect(decoded.organization?.name == organization.name)
        #expect(decoded.organization?.slug == organization.slug)
        #expect(decoded.organization?.raw == organization.raw)
    }
}
