import Foundation

/// The refresh tokens of an emulated Auth0 tenant, by rotation family: each live token's
/// grant and expiry, each family's newest token and the one its latest rotation spent
/// (the one Auth0's reuse interval lets through again), the revoked families and why, and
/// the log of refresh grants the soak's judges read. A value the tenant's store owns; the
/// store makes the tokens and decides the grants.
struct Auth0RefreshFamilies {
    struct Token {
        var familyID: String
        var grant: Auth0Store.Grant
        var expiresAt: Date
        /// Spent by a rotation.
        var used = false
    }

    private struct Family {
        /// The user the family was issued to.
        let userID: String
        var newest: String
        var issued: Int
        /// The token the latest rotation spent, and when.
        var previous: String?
        var rotatedAt: Date?
    }

    /// The live tokens (a revoked family's are gone).
    private var tokens: [String: Token] = [:]
    /// Each revoked family and why (the first cause: a revoked family stays revoked).
    private var revoked: [String: Auth0FamilyRevocation] = [:]
    /// Every refresh token ever issued → its family and generation: kept after spending
    /// and revocation so tests and the soak can judge a stored token.
    private var familyOfToken: [String: (family: String, generation: Int)] = [:]
    private var families: [String: Family] = [:]
    /// The refresh grants applied since the log was last taken (the latest 10,000).
    private var log: [Auth0RefreshRecord] = []

    /// The live token `token`, if it is one.
    subscript(token: String) -> Token? { tokens[token] }

    func isRevoked(_ familyID: String) -> Bool { revoked[familyID] != nil }

    /// The family and generation of any refresh token the tenant ever issued.
    func generation(of token: String) -> (family: String, generation: Int)? { familyOfToken[token] }

    /// The families of `userID`'s live tokens.
    func families(of userID: String) -> Set<String> {
        Set(tokens.values.filter { $0.grant.userID == userID }.map(\.familyID))
    }

    /// Starts family `familyID` with its first token.
    mutating func start(_ token: String, family familyID: String, grant: Auth0Store.Grant, expiresAt: Date) {
        tokens[token] = Token(familyID: familyID, grant: grant, expiresAt: expiresAt)
        record(token, in: familyID, user: grant.userID)
    }

    /// Spends the live `token` and issues `next` in its family, with its grant and expiry.
    /// A token spent again (inside the reuse interval) does not restart the interval: the
    /// window is the first rotation's.
    mutating func rotate(_ token: String, to next: String, at now: Date) {
        guard var spent = tokens[token] else { return }
        let reused = spent.used
        spent.used = true
        tokens[token] = spent
        tokens[next] = Token(familyID: spent.familyID, grant: spent.grant, expiresAt: spent.expiresAt)
        record(next, in: spent.familyID, user: spent.grant.userID)
        if !reused {
            families[spent.familyID]?.previous = token
            families[spent.familyID]?.rotatedAt = now
        }
    }

    /// Whether the spent `token` may be exchanged again: it is the one its family's latest
    /// rotation spent, within `interval` of that rotation.
    func isInReuseInterval(_ token: String, family familyID: String, interval: TimeInterval, now: Date) -> Bool {
        guard interval > 0, let family = families[familyID], family.previous == token, let rotatedAt = family.rotatedAt else { return false }
        return now < rotatedAt.addingTimeInterval(interval)
    }

    /// Revokes a family: its live tokens go; the first reason stays.
    mutating func revoke(family familyID: String, _ reason: Auth0FamilyRevocation) {
        if revoked[familyID] == nil { revoked[familyID] = reason }
        tokens = tokens.filter { $0.value.familyID != familyID }
    }

    /// Logs a refresh grant that presented `token` (and issued `issued`, when it did).
    mutating func note(_ outcome: Auth0RefreshRecord.Outcome, presented token: String, issued: String? = nil, at date: Date) {
        let presented = familyOfToken[token]
        log.append(
            Auth0RefreshRecord(
                date: date, family: presented?.family, generation: presented?.generation ?? 0,
                outcome: outcome, issuedGeneration: issued.flatMap { familyOfToken[$0]?.generation },
                user: presented.flatMap { families[$0.family]?.userID }))
        if log.count > 10_000 { log.removeFirst(log.count - 10_000) }
    }

    /// The refresh grants logged since the last call, oldest first; the log starts again.
    mutating func takeLog() -> [Auth0RefreshRecord] {
        defer { log.removeAll() }
        return log
    }

    /// What the tenant knows of a refresh token: its family and generation, whether it is
    /// that family's newest, whether it was spent (rotated away), and whether and why the
    /// family was revoked.
    func status(of token: String) -> Auth0RefreshTokenStatus {
        guard let issued = familyOfToken[token], let family = families[issued.family] else { return Auth0RefreshTokenStatus(known: false) }
        return Auth0RefreshTokenStatus(
            known: true, familyID: issued.family, newest: family.newest == token,
            spent: tokens[token]?.used ?? (family.newest != token),
            familyRevoked: revoked[issued.family] != nil, issuedInFamily: family.issued,
            generation: issued.generation, revocation: revoked[issued.family])
    }

    private mutating func record(_ token: String, in familyID: String, user: String) {
        var family = families[familyID] ?? Family(userID: user, newest: token, issued: 0)
        family.newest = token
        family.issued += 1
        families[familyID] = family
        familyOfToken[token] = (familyID, family.issued)
    }
}
