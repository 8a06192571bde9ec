/// What a provider reports about a session after a login, a validation or a renewal,
/// and what the core hands a provider as the current session.
///
/// The one rule: an object left `nil` is not reported, and the core keeps what it had
/// (after a login: nothing). See ``AuthProvider``.
public struct AuthenticatedSession: Sendable, Hashable {
    /// The session's tokens.
    public var tokens: SessionTokens
    /// The consumer session, if reported.
    public var session: Session?
    /// The user, if reported.
    public var user: User?
    /// The B2B member session, if reported.
    public var memberSession: MemberSession?
    /// The B2B member, if reported.
    public var member: Member?
    /// The B2B organization, if reported.
    public var organization: Organization?

    /// Creates a report.
    public init(
        tokens: SessionTokens, session: Session? = nil, user: User? = nil, memberSession: MemberSession? = nil,
        member: Member? = nil, organization: Organization? = nil
    ) {
        self.tokens = tokens
        self.session = session
        self.user = user
        self.memberSession = memberSession
        self.member = member
        self.organization = organization
    }
}
