/// The parent's judgement of one driver's population: what each user's session should
/// be, which emulator events legitimately ended it, and every report's transitions
/// checked against that.
struct SoakTracker {
    let driver: any SoakDriver
    private(set) var summary: DriverSummary
    /// Whether the user had a session at the end of the last report.
    private var signedIn: [String: Bool] = [:]
    /// The event that legitimately ends every session of the user (a ban, a deletion).
    private var ended: [String: SoakEvent] = [:]
    /// An event that ends the session the user has when it happens (Stytch: revocation,
    /// expiry; Auth0: revocation): it explains one end, and no longer once the user has
    /// logged in again.
    private var pendingEnd: [String: SoakEvent] = [:]
    /// Users whose login was under way (their last reported state `establishing`) when an
    /// event of ``pendingEnd`` was performed: the session that login creates may be one the
    /// event ended (its answer can arrive after the event), so that login's completion does
    /// not clear the event; the next one does.
    private var endOutlivesLogin: Set<String> = []
    /// Each user's state at the end of the last report.
    private var lastState: [String: String] = [:]
    /// Users whose logout was under way when their worker was killed: its revocation may
    /// have reached the provider while the store still held the session. It explains one
    /// end the provider answered with a 401 (the session it no longer has), at start or
    /// later, until the user logs in again.
    private var lostLogout: Set<String> = []
    /// Users whose logout may have been lost with a killed worker.
    private var mayHaveLoggedOut: Set<String> = []
    /// The event that ended the user's last session, until the user logs in again. A
    /// restarted client may find that session back in the store — its removal failed and
    /// the worker was killed (or the shutdown's tries failed too) before a retry removed
    /// it: the event then explains the provider's refusal of it, once per restart.
    private var lastEnd: [String: SoakEvent] = [:]
    /// Session ends nothing the tracker knows explains, waiting for the driver's word
    /// (``SoakDriver/explainEnd(of:ledger:control:)``).
    private(set) var unexplained: [UnexplainedEnd] = []
    /// Rotations already counted as lost (to a kill or in transit), by token: a stale
    /// token is seen at every inspection until the client presents it.
    private var lostRotations: Set<String> = []

    /// A session end awaiting the driver's explanation, and what it is if none comes.
    struct UnexplainedEnd: Sendable {
        enum Figure: Sendable { case wrongfulLogout, lostAtRestart }
        var user: String
        var figure: Figure
        var detail: String
    }

    init(driver: any SoakDriver, users: Int) {
        self.driver = driver
        summary = DriverSummary(driver: type(of: driver).name, users: users)
        summary.tracksRefreshTokens = driver.tracksRefreshTokens
    }

    func hasEnded(_ user: String) -> Bool { ended[user] != nil }

    /// Records an event about to be performed on `user`.
    mutating func performing(_ event: SoakEvent, on user: String) {
        switch event {
        case .ban: summary.bans += 1
        case .delete: summary.deletions += 1
        case .revokeSessions: summary.revocations += 1
        case .expireSessions: summary.expirations += 1
        }
        guard driver.endsSession(event), ended[user] == nil else { return }
        if event.isPermanent {
            ended[user] = event
            pendingEnd[user] = nil
        } else {
            pendingEnd[user] = event
            if lastState[user] == "establishing" { endOutlivesLogin.insert(user) }
        }
    }

    /// A worker was killed during a step with these intents.
    mutating func killed(intents: [String: SoakIntent], outcome: WorkerSlot.Outcome) {
        summary.kills += 1
        summary.workerRestarts += 1
        for (user, intent) in intents {
            switch intent {
            case .logout:
                // The logout may have revoked the session at the provider and died before it
                // cleared the store: the restarted client may find the session gone at start,
                // or later (a check that failed at start, retried).
                mayHaveLoggedOut.insert(user)
                lostLogout.insert(user)
            case .login, .use:
                // A login may have happened and its report died with the worker: a session
                // the restarted client finds may be that new one, not an ended one read back.
                lastEnd[user] = nil
            case .idle, .token, .restart:
                break
            }
        }
        inspected(outcome.findings)
    }

    /// What reading stores found (after a kill, or at the end).
    mutating func inspected(_ findings: StoreInspector.Findings) {
        summary.storesChecked += findings.checked
        for problem in findings.problems { violation(\.undecodableStores, problem) }
        for (user, verdict) in findings.verdicts {
            summary.refreshTokensJudged += 1
            switch verdict {
            case .fine: break
            case .lost(let detail): violation(\.refreshTokensLost, "\(user): \(detail)")
            case .rotationLost(let loss, let token): rotationLost(loss, token: token)
            }
        }
    }

    private mutating func rotationLost(_ loss: RotationLoss, token: String) {
        guard lostRotations.insert(token).inserted else { return }
        switch loss {
        case .kill: summary.rotationsLostToKills += 1
        case .transit: summary.rotationsLostInTransit += 1
        }
    }

    mutating func absorb(_ report: HostReport) {
        summary.counters.add(report.counters)
        for violation in report.violations {
            switch violation.kind {
            case .renewalOverlap: self.violation(\.renewalOverlaps, "\(violation.user): \(violation.detail)")
            case .streamMismatch: self.violation(\.streamMismatches, "\(violation.user): \(violation.detail)")
            case .secretInLog: self.violation(\.secretsInLogs, "\(violation.user): \(violation.detail)")
            case .offTheDiagram: self.violation(\.transitionsOffTheDiagram, "\(violation.user): \(violation.detail)")
            case .machineDisagrees: self.violation(\.machineDisagreements, "\(violation.user): \(violation.detail)")
            }
        }
        for transition in report.transitions { judge(transition) }
        for (user, state) in report.states {
            lastState[user] = state
            if state == "established" || state == "tokenExpired" {
                signedIn[user] = true
            } else if state == "notLoggedIn" || state.hasPrefix("terminated") {
                signedIn[user] = false
            }
            // `restoring` says nothing yet (the store could not be read): a logout lost
            // with a kill may still be what the client finds once it reads.
            if state != "restoring" { mayHaveLoggedOut.remove(user) }
        }
    }

    /// A session may end only by a logout, or by an event the provider's rules say ends it;
    /// an end nothing here explains waits for the driver (``unexplained``).
    private mutating func judge(_ transition: ObservedTransition) {
        let to = transition.to
        let from = transition.from
        // A new session: an event before it no longer explains an end — unless the login
        // was under way when the event was performed (its session may be the one it ended).
        if from == "establishing", to == "established", endOutlivesLogin.remove(transition.user) == nil {
            pendingEnd[transition.user] = nil
            lastEnd[transition.user] = nil
            lostLogout.remove(transition.user)
        }
        // A session that ended, read back from the store by a restarted client.
        if from == "start", to == "established" || to == "tokenExpired", let event = lastEnd[transition.user],
            pendingEnd[transition.user] == nil, ended[transition.user] == nil
        {
            summary.resurrectedEnds += 1
            pendingEnd[transition.user] = event
        }
        guard to == "notLoggedIn" || to.hasPrefix("terminated") else { return }
        // A failed login, or a logout acknowledging a termination: no session was lost.
        if from == "establishing" || from == "notLoggedIn" || from.hasPrefix("terminated") { return }
        if transition.cause == "logout" { return }
        let when = "at \(Int(transition.simulatedTime))"
        if let event = ended[transition.user] ?? pendingEnd.removeValue(forKey: transition.user) {
            lastEnd[transition.user] = event
            summary.legitimateEnds += 1
            summary.endsByCause["\(event) → \(to)", default: 0] += 1
            return
        }
        if lostLogout.contains(transition.user), transition.cause?.contains("(HTTP 401)") == true {
            lostLogout.remove(transition.user)
            summary.legitimateEnds += 1
            summary.endsByCause["logout lost with a kill → \(to)", default: 0] += 1
            return
        }
        if from == "start" || from == "restoring" {
            if let event = lastEnd[transition.user] {
                // The session an event ended, found ended by a client restarted since (seed 18:
                // in one step a revocation, the old client's renewal refused and the store
                // cleared, an in-process restart whose restore read the store as it emptied):
                // the same end seen again, nothing lost, not counted twice.
                summary.endsByCause["\(event) → \(to), seen again at restart", default: 0] += 1
                return
            }
            // `restoring` says nothing (the store could not be read): what the parent last
            // knew decides, as after a kill.
            let known = signedIn[transition.user] ?? false
            let hadSession = transition.priorState.map { $0 == "established" || $0 == "tokenExpired" || ($0 == "restoring" && known) } ?? known
            if !hadSession || mayHaveLoggedOut.contains(transition.user) { return }
            unexplained.append(
                UnexplainedEnd(
                    user: transition.user, figure: .lostAtRestart,
                    detail:
                        "\(transition.user) \(when): restarted client found \(to) (before: \(transition.priorState ?? "killed worker, last reported signed in")); cause: \(transition.cause ?? "none logged")"
                ))
            return
        }
        unexplained.append(
            UnexplainedEnd(
                user: transition.user, figure: .wrongfulLogout,
                detail:
                    "\(transition.user) \(when): \(from) → \(to) with no ban, deletion, revocation or logout; cause: \(transition.cause ?? "none logged")"
            ))
    }

    /// Takes the ends waiting for the driver's explanation.
    mutating func takeUnexplained() -> [UnexplainedEnd] {
        defer { unexplained = [] }
        return unexplained
    }

    /// The driver's verdict on an unexplained end: explained (counted apart), or a violation.
    mutating func resolve(_ end: UnexplainedEnd, _ explanation: EndExplanation?) {
        switch explanation {
        case nil: violation(end.figure == .wrongfulLogout ? \.wrongfulLogouts : \.sessionsLostAtRestart, end.detail)
        case .revokedOnPurpose:
            summary.legitimateEnds += 1
            summary.endsByCause["revoked on purpose", default: 0] += 1
        case .rotationLost(let loss, let token):
            rotationLost(loss, token: token)
            summary.endsByLostRotation += 1
            summary.endsByCause["rotation lost (\(loss.rawValue))", default: 0] += 1
        }
    }

    private mutating func violation(_ figure: WritableKeyPath<InvariantFigures, Int>, _ detail: String) {
        summary.invariants[keyPath: figure] += 1
        if summary.samples.count < 25 { summary.samples.append(detail) }
    }

    mutating func record(faults: [String: Int], requests: Int) {
        summary.faults.merge(faults, uniquingKeysWith: +)
        summary.emulatorRequests += requests
    }

    mutating func failure(_ text: String) {
        if summary.samples.count < 25 { summary.samples.append("harness: \(text)") }
        summary.harnessFailures += 1
    }

    mutating func finish(simulatedHours: Double, steps: Int) {
        summary.simulatedHours = simulatedHours
        summary.steps = steps
    }
}
