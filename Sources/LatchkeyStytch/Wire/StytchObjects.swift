internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyJWT

/// Reads Stytch's `data` objects into the core's models, keeping each raw object.
enum StytchObjects {
    /// A session JWT lives 5 minutes, whatever the session's length.
    static let jwtLifetime: TimeInterval = 300

    /// `session_token` and `session_jwt` as the core's tokens. The JWT's lifetime (`exp −
    /// iat`, read without verification: only for scheduling; else 5 minutes) starts at `now`,
    /// the local moment of receipt: its absolute times are on Stytch's clock, not ours.
    static func tokens(_ data: JSONObject, path: StytchPath, now: Date) throws(AuthError) -> SessionTokens {
        guard let jwt = data.nonEmptyString("session_jwt"), let token = data.nonEmptyString("session_token") else {
            throw StytchAPIClient.malformed(path, "the answer has no session_token or session_jwt")
        }
        guard BearerTokenSyntax.isValid(jwt), BearerTokenSyntax.isValid(token) else {
            throw StytchAPIClient.malformed(path, "the session_token or session_jwt is not a bearer token (RFC 6750 characters only)")
        }
        return tokens(jwt: jwt, sessionToken: token, now: now)
    }

    static func tokens(jwt: String, sessionToken: String, now: Date) -> SessionTokens {
        let claims = try? JWT.decode(jwt).claims
        let times = ServerLifetime.localTimes(receivedAt: now, issuedAt: claims?.issuedAt, expiresAt: claims?.expiresAt, fallback: jwtLifetime)
        return SessionTokens(accessToken: jwt, sessionToken: sessionToken, issuedAt: times.issuedAt, expiresAt: times.expiresAt)
    }

    /// A consumer answer: tokens, `session`, `user`.
    static func consumer(_ data: JSONObject, path: StytchPath, now: Date) throws(AuthError) -> AuthenticatedSession {
        let tokens = try tokens(data, path: path, now: now)
        guard let sessionObject = data.object("session"), let session = session(sessionObject) else {
            throw StytchAPIClient.malformed(path, "the answer has no session")
        }
        return AuthenticatedSession(tokens: tokens, session: session, user: data.object("user").flatMap(user))
    }

    /// A B2B answer with a member session: tokens, `member_session`, `member`, `organization`.
    static func member(_ data: JSONObject, path: StytchPath, now: Date) throws(AuthError) -> AuthenticatedSession {
        let tokens = try tokens(data, path: path, now: now)
        guard let object = data.object("member_session"), let memberSession = memberSession(object) else {
            throw StytchAPIClient.malformed(path, "the answer has no member_session")
        }
        return AuthenticatedSession(
            tokens: tokens, memberSession: memberSession, member: data.object("member").flatMap(member),
            organization: data.object("organization").flatMap(organization))
    }

    static func session(_ object: JSONObject) -> Session? {
        guard let userID = object.nonEmptyString("user_id") else { return nil }
        return Session(
            id: object.nonEmptyString("session_id"), userID: userID, startedAt: object.timestamp("started_at"),
            lastAccessedAt: object.timestamp("last_accessed_at"), expiresAt: object.timestamp("expires_at"),
            authenticationFactors: object.array("authentication_factors") ?? [],
            roles: (object.array("roles") ?? []).compactMap(\.stringValue), raw: object)
    }

    static func user(_ object: JSONObject) -> User? {
        guard let id = object.nonEmptyString("user_id") else { return nil }
        let email = (object.array("emails") ?? []).lazy.compactMap { $0.objectValue?.nonEmptyString("email") }.first
        let nameObject = object.object("name")
        let parts = ["first_name", "middle_name", "last_name"].compactMap { nameObject?.nonEmptyString($0) }
        return User(
            id: id, email: email, name: parts.isEmpty ? nil : parts.joined(separator: " "), status: object.nonEmptyString("status"),
            raw: object)
    }

    static func memberSession(_ object: JSONObject) -> MemberSession? {
        guard let id = object.nonEmptyString("member_session_id"), let memberID = object.nonEmptyString("member_id"),
            let organizationID = object.nonEmptyString("organization_id")
        else { return nil }
        return MemberSession(
            id: id, memberID: memberID, organizationID: organizationID, organizationSlug: object.nonEmptyString("organization_slug"),
            startedAt: object.timestamp("started_at"), lastAccessedAt: object.timestamp("last_accessed_at"),
            expiresAt: object.timestamp("expires_at"), authenticationFactors: object.array("authentication_factors") ?? [],
            roles: (object.array("roles") ?? []).compactMap(\.stringValue), raw: object)
    }

    static func member(_ object: JSONObject) -> Member? {
        guard let id = object.nonEmptyString("member_id"), let organizationID = object.nonEmptyString("organization_id") else { return nil }
        return Member(
            id: id, organizationID: organizationID, email: object.nonEmptyString("email_address"), name: object.nonEmptyString("name"),
            status: object.nonEmptyString("status"), raw: object)
    }

    static func organization(_ object: JSONObject) -> Organization? {
        guard let id = object.nonEmptyString("organization_id") else { return nil }
        return Organization(id: id, name: object.nonEmptyString("organization_name"), slug: object.nonEmptyString("organization_slug"), raw: object)
    }
}
