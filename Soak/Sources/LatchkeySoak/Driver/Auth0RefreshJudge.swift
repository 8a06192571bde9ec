internal import LatchkeyEmulator

/// Judges one Auth0 user's refresh tokens: the emulator's record says what it issued
/// (each family's newest token, what was spent, which families were revoked), the user's
/// ``RefreshLedger`` says what reached the clients and the store, in order.
///
/// The lead's rule decides: a rotated refresh token is saved before it is used. So a
/// stored token older than its family's newest is
/// - a **rotation lost to a kill** when no client ever used the newer token and the worker
///   was killed after it was received (before the save) or while the refresh was on the
///   wire;
/// - a **rotation lost in transit** when no client ever received the newer token and the
///   client had given up on the refresh that presented the stored one (its deadline, a
///   dropped connection) — the emulator answered anyway, too late;
/// - a **lost refresh token** (the invariant) otherwise: a client held a newer token (and
///   used it, or kept it unsaved past the end) while the store kept the old one.
/// A family revoked on purpose (a logout's revocation, the parent's revocation or
/// deletion after the family began) excuses everything. A family the emulator revoked by
/// reuse detection is never on purpose: the reused token must be one whose request the
/// client lost (its `U`, or a `P` whose worker was killed before any outcome), or the
/// revocation counts.
struct Auth0RefreshJudge {
    let ledger: [RefreshLedger.Entry]
    let control: EmulatorControl
    private var statuses: [String: Auth0RefreshTokenStatus] = [:]

    init(ledger: [RefreshLedger.Entry], control: EmulatorControl) {
        self.ledger = ledger
        self.control = control
    }

    /// The verdict on a stored refresh token.
    mutating func stored(_ token: String) async -> StoredSessionVerdict {
        let status = await self.status(token)
        guard status.known, let family = status.familyID else { return .lost("the stored refresh token is unknown to the emulator") }
        if status.newest { return .fine }
        if await revokedOnPurpose(family, status) { return .fine }
        return await stale(token, family: family, issued: status.issuedInFamily)
    }

    /// Why the last refresh the ledger shows denied (`invalid_grant`) ended the session,
    /// when a lost rotation or a revocation on purpose explains it.
    mutating func explainDenial() async -> EndExplanation? {
        guard let denied = ledger.last(where: { $0.tag == .denied })?.token else { return nil }
        let status = await self.status(denied)
        guard status.known, let family = status.familyID else { return nil }
        if await revokedOnPurpose(family, status) { return .revokedOnPurpose }
        if !status.newest {
            if case .rotationLost(let loss, let token) = await stale(denied, family: family, issued: status.issuedInFamily) {
                return .rotationLost(loss, token: token)
            }
            return nil
        }
        // The newest token was refused: its family was revoked by reuse detection of an
        // older token. A request presenting that token which the client lost — it gave up
        // on it (deadline, dropped connection), or its worker was killed while it was on
        // the wire — applied after the retry or the restarted client had rotated the same
        // token, explains it: no client can see a request its predecessor left at the
        // server. The lost request came before the denied token was received.
        guard case .reuse(let reused, _) = status.revocation, let receivedAt = lastIndex(.received, denied),
            await self.status(reused).familyID == family, let loss = lostPresentation(of: reused, before: receivedAt)
        else { return nil }
        return .rotationLost(loss, token: reused)
    }

    /// How a presentation of `token` before ledger index `end` was lost, if one was: `U`
    /// (the client gave up on it: `.transit`), or a `P` whose next outcome (received,
    /// denied, unanswered, killed) is the kill `K` (`.kill`).
    func lostPresentation(of token: String, before end: Int) -> RotationLoss? {
        for index in ledger.indices where index < end && ledger[index].token == token {
            switch ledger[index].tag {
            case .unanswered:
                return .transit
            case .presented:
                let outcomes: Set<RefreshLedger.Entry.Tag> = [.received, .denied, .unanswered, .killed]
                if ledger[(index + 1)...].first(where: { outcomes.contains($0.tag) })?.tag == .killed { return .kill }
            default:
                continue
            }
        }
        return nil
    }

    /// A token older than its family's newest, not revoked on purpose.
    private mutating func stale(_ token: String, family: String, issued: Int) async -> StoredSessionVerdict {
        let since = lastIndex(.received, token) ?? -1
        var newer: (index: Int, token: String)?
        for (index, entry) in ledger.enumerated() where index > since && entry.tag == .received {
            guard let candidate = entry.token, await status(candidate).familyID == family else { continue }
            newer = (index, candidate)
        }
        if let newer {
            // A client held the newer token.
            let saved = ledger[newer.index...].contains { $0.tag == .saved && $0.token == newer.token }
            if ledger[newer.index...].contains(where: { $0.tag == .presented && $0.token == newer.token }) {
                return .lost(
                    "a newer refresh token of its family (\(issued) issued) was received\(saved ? ", saved" : " but never saved") and used, and the store holds an older one"
                )
            }
            if saved { return .lost("a newer refresh token of its family was received and saved, and the store holds an older one again") }
            if ledger[newer.index...].contains(where: { $0.tag == .killed }) { return .rotationLost(.kill, token: newer.token) }
            let failed = ledger[newer.index...].contains { $0.tag == .saveFailed && $0.token == newer.token }
            return .lost(
                "a newer refresh token of its family was received and never stored (\(failed ? "its save failed" : "no save was tried")), and no kill explains it"
            )
        }
        // No client ever held a newer token: the emulator rotated this one and the answer
        // never arrived.
        if ledger.contains(where: { $0.tag == .unanswered && $0.token == token }) { return .rotationLost(.transit, token: token) }
        // Presented, then the worker was killed before an answer came back: the emulator
        // rotated a token the new worker presents again.
        if let presented = ledger.firstIndex(where: { $0.tag == .presented && $0.token == token }),
            ledger[presented...].contains(where: { $0.tag == .killed })
        {
            return .rotationLost(.kill, token: token)
        }
        return .lost("the emulator rotated the stored refresh token, though no client presented it without getting an answer and no kill happened")
    }

    /// Whether the family was revoked by the harness: a logout's revocation of one of its
    /// tokens, or a revocation or deletion event after the family began. Reuse detection
    /// is never on purpose, whatever the ledger shows around it.
    private mutating func revokedOnPurpose(_ family: String, _ known: Auth0RefreshTokenStatus) async -> Bool {
        guard known.familyRevoked else { return false }
        if case .reuse = known.revocation { return false }
        var began: Int?
        for (index, entry) in ledger.enumerated() {
            switch entry.tag {
            case .revoked:
                if let token = entry.token, await status(token).familyID == family { return true }
            case .received:
                if began == nil, let token = entry.token, await status(token).familyID == family { began = index }
            case .event:
                if began != nil { return true }
            default: break
            }
        }
        return false
    }

    private func lastIndex(_ tag: RefreshLedger.Entry.Tag, _ token: String) -> Int? {
        ledger.lastIndex { $0.tag == tag && $0.token == token }
    }

    private mutating func status(_ token: String) async -> Auth0RefreshTokenStatus {
        if let known = statuses[token] { return known }
        let status = (try? await control.auth0RefreshTokenStatus(token)) ?? Auth0RefreshTokenStatus(known: false)
        statuses[token] = status
        return status
    }
}
