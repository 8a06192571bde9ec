import Foundation
@_spi(Benchmarks) import Latchkey
import LatchkeyJSON

/// Session records for the vault codec tests: every field of the five objects and the
/// tokens filled, with non-ASCII text, fractional times and provider objects.
enum VaultSamples {
    static let provider = "stytch"

    static func object(_ text: String) -> JSONObject {
        guard case .object(let object)? = try? JSONValue.parse(text) else { return ["unparsable sample": .string(text)] }
        return object
    }

    static var tokens: SessionTokens {
        SessionTokens(
            accessToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl", sessionToken: "session-token-Ωmega",
            refreshToken: "refresh-token-1", idToken: "id-token-1",
            issuedAt: Date(timeIntervalSince1970: 1_769_673_600.25), expiresAt: Date(timeIntervalSince1970: 1_769_673_900),
            attributes: ["scope": "openid profile offline_access", "audience": "https://api.example.com", "région": "eu-west"])
    }

    static var session: Session {
        Session(
            id: "session-1", userID: "user-1", startedAt: Date(timeIntervalSince1970: 1_769_673_600),
            lastAccessedAt: Date(timeIntervalSince1970: 1_769_676_000.5), expiresAt: Date(timeIntervalSince1970: 1_772_265_600),
            authenticationFactors: [.object(object(#"{"type":"oauth","delivery_method":"oauth_google","n":[1,2.5,-3e-7,true,null]}"#))],
            roles: ["admin", "rédacteur"],
            raw: object(#"{"session_id":"session-1","attributes":{"ip_address":"203.0.113.7","user_agent":"app \"1.4\"\n"},"custom_claims":{}}"#))
    }

    static var user: User {
        User(
            id: "user-1", email: "jane.doe@example.com", name: "Jane Doë", status: "active",
            raw: object(
                #"{"user_id":"user-1","name":{"first_name":"Jane","last_name":"Doë"},"emails":[{"email":"jane.doe@example.com","verified":true}],"phone_numbers":[],"trusted_metadata":{"plan":"pro","seats":12}}"#
            ))
    }

    static var memberSession: MemberSession {
        MemberSession(
            id: "member-session-1", memberID: "member-1", organizationID: "organization-1", organizationSlug: "acme",
            startedAt: Date(timeIntervalSince1970: 1_769_673_600), lastAccessedAt: Date(timeIntervalSince1970: 1_769_673_700),
            expiresAt: Date(timeIntervalSince1970: 1_769_677_200.125),
            authenticationFactors: [.object(object(#"{"type":"password","last_authenticated_at":"2026-01-29T08:00:00Z"}"#))],
            roles: ["stytch_member"], raw: object(#"{"member_session_id":"member-session-1","custom_claims":{"tier":"gold"}}"#))
    }

    static var member: Member {
        Member(
            id: "member-1", organizationID: "organization-1", email: "ann@acme.example", name: "Ann", status: "active",
            raw: object(#"{"member_id":"member-1","roles":[{"role_id":"stytch_member"}]}"#))
    }

    static var organization: Organization {
        Organization(
            id: "organization-1", name: "Acme ✓", slug: "acme",
            raw: object(#"{"organization_id":"organization-1","email_allowed_domains":["acme.example"]}"#))
    }

    /// All five objects and every token field.
    static var full: AuthenticatedSession {
        AuthenticatedSession(tokens: tokens, session: session, user: user, memberSession: memberSession, member: member, organization: organization)
    }

    static let validatedAt = Date(timeIntervalSince1970: 1_769_673_780.75)

    static var fullRecord: StoredSessionRecord { StoredSessionRecord(provider: provider, session: full, validatedAt: validatedAt) }
}
