/// What the emulated Auth0 tenant knows of a refresh token (a test and soak probe): the
/// side of "is the stored refresh token the newest the provider issued?" that only the
/// provider can answer.
public struct Auth0RefreshTokenStatus: Sendable, Equatable {
    /// The tenant issued this token.
    public var known: Bool
    /// Its rotation family (nil when unknown).
    public var familyID: String?
    /// It is the newest token of its family: the one a client must hold.
    public var newest: Bool
    /// It was redeemed and rotated away (presenting it again revokes the family).
    public var spent: Bool
    /// Its family was revoked (reuse detected, logout, an admin revocation).
    public var familyRevoked: Bool
    /// How many tokens the family has had (1 + rotations).
    public var issuedInFamily: Int
    /// This token's place in its family (1 = issued at login; 0 when unknown).
    public var generation: Int
    /// Why the family was revoked, when it was.
    public var revocation: Auth0FamilyRevocation?

    /// A status; an unknown token has every other field empty.
    public init(
        known: Bool, familyID: String? = nil, newest: Bool = false, spent: Bool = false,
        familyRevoked: Bool = false, issuedInFamily: Int = 0, generation: Int = 0, revocation: Auth0FamilyRevocation? = nil
    ) {
        self.known = known
        self.familyID = familyID
        self.newest = newest
        self.spent = spent
        self.familyRevoked = familyRevoked
        self.issuedInFamily = issuedInFamily
        self.generation = generation
        self.revocation = revocation
    }
}
