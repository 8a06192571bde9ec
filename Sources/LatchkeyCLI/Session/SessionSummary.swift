import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON

/// Who is signed in and until when, as `login` and `status` show it: the email or the
/// display name when the provider gives one (a B2B login's member and organization), the
/// id as well in JSON, and the session's and the access token's expiry.
struct SessionSummary {
    var userID: String?
    var email: String?
    var name: String?
    var organizationID: String?
    var organizationName: String?
    var sessionExpiresAt: Date?
    var accessTokenExpiresAt: Date?
    var lastValidatedAt: Date?

    init(_ client: AuthClient) async {
        if let member = client.currentMember {
            (userID, email, name, organizationID) = (member.id, member.email, member.name, member.organizationID)
            organizationName = client.currentOrganization?.name ?? client.currentOrganization?.slug ?? client.currentMemberSession?.organizationSlug
        } else if let user = client.currentUser {
            (userID, email, name) = (user.id, user.email, user.name)
        } else {
            userID = client.currentSession?.userID ?? client.currentMemberSession?.memberID
        }
        sessionExpiresAt = client.currentSession?.expiresAt ?? client.currentMemberSession?.expiresAt
        accessTokenExpiresAt = await client.accessTokenExpiresAt
        lastValidatedAt = await client.lastValidatedAt
        // Empty strings from a provider name nobody.
        if email?.isEmpty == true { email = nil }
        if name?.isEmpty == true { name = nil }
    }

    /// `Alice Liddell <alice@example.com>`, the email, the name, or the id; escaped for a terminal.
    var person: String {
        let text =
            switch (name, email) {
            case (let name?, let email?) where name != email: "\(name) <\(email)>"
            case (_, let email?): email
            case (let name?, nil): userID.map { $0 == name ? name : "\(name) (\($0))" } ?? name
            case (nil, nil): userID ?? "an unnamed user"
            }
        let organization = organizationName ?? organizationID
        return TerminalText.escape(text + (organization.map { " in \($0)" } ?? ""))
    }

    /// `{"id", "email", "name"}` (and the organization for a B2B member).
    var userObject: JSONValue {
        guard let userID else { return .null }
        var object: JSONObject = ["id": .string(userID)]
        object["email"] = email.map(JSONValue.string) ?? .null
        object["name"] = name.map(JSONValue.string) ?? .null
        if let organizationID {
            object["organization"] = .object(["id": .string(organizationID), "name": organizationName.map(JSONValue.string) ?? .null])
        }
        return .object(object)
    }

    /// The expiries and the last validation, as JSON members.
    func addTimes(to object: inout JSONObject) {
        object["session_expires_at"] = sessionExpiresAt?.iso8601 ?? .null
        object["access_token_expires_at"] = accessTokenExpiresAt?.iso8601 ?? .null
        object["last_validated_at"] = lastValidatedAt?.iso8601 ?? .null
    }

    /// The expiries, as `status` lines.
    var timeLines: [String] {
        var lines: [String] = []
        if let sessionExpiresAt {
            lines.append("session expires: \(RelativeTime.describe(sessionExpiresAt)) (\(sessionExpiresAt.formatted(.iso8601)))")
        }
        if let accessTokenExpiresAt {
            lines.append("token expires:   \(RelativeTime.describe(accessTokenExpiresAt)) (\(accessTokenExpiresAt.formatted(.iso8601)))")
        }
        return lines
    }
}
