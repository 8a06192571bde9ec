public import Latchkey
public import LatchkeyJSON

/// One organization `b2b/discovery/organizations` offers for an intermediate session:
/// the organization, the member's membership in it, and whether the factors so far
/// suffice there.
public struct StytchDiscoveredOrganization: Sendable, Hashable {
    /// The organization.
    public var organization: Organization
    /// The membership type (`active_member`, `pending_member`, `invited_member`,
    /// `eligible_to_join_by_email_domain`, …).
    public var membershipType: String?
    /// The member, when there is one already.
    public var member: Member?
    /// Whether an exchange into this organization yields a member session at once.
    public var memberAuthenticated: Bool
    /// `mfa_required` and `primary_required` as Stytch sent them (`null` when absent).
    public var requirements: JSONValue
    /// The raw discovered-organization object.
    public var raw: JSONObject

    /// Creates one.
    public init(
        organization: Organization, membershipType: String?, member: Member?, memberAuthenticated: Bool, requirements: JSONValue,
        raw: JSONObject
    ) {
        self.organization = organization
        self.membershipType = membershipType
        self.member = member
        self.memberAuthenticated = memberAuthenticated
        self.requirements = requirements
        self.raw = raw
    }
}
