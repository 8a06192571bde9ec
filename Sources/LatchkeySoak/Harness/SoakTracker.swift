/// The parent's judgement of one driver's population: what each user's session should
/// be, which emulator events legitimately ended it, and every report's transitions
/// checked against that.
struct SoakTracker {
    let driver: any SoakDriver
    private(set) var summary: DriverSummary
    /// Whether the user had a session at the end of the last report.
    private var signedIn: [String: Bool] = [:]
    /// The event that legitimately ends the user's sessions, once performed.
    private var ended: [String: SoakEvent] = [:]
    /// Users whose logout may have been lost with a killed worker.
    private var mayHaveLoggedOut: Set<String> = []

    init(driver: any SoakDriver, users: Int) {
        self.driver = driver
        summary = DriverSummary(driver: type(of: driver).name, users: users)
    }

    func hasEnded(_ user: String) -> Bool { ended[user] != nil }

    /// Records an event about to be performed on `user`.
    mutating func performing(_ event: SoakEvent, on user: String) {
        switch event {
        case .ban: summary.bans += 1
        case .delete: summary.deletions += 1
        case .revokeSessions: summary.revocations += 1
        }
        if driver.endsSession(event), ended[user] == nil { ended[user] = event }
    }

    /// A worker was killed during a step with these intents.
    mutating func killed(intents: [String: SoakIntent], outcome: WorkerSlot.Outcome) {
        summary.kills += 1
        summary.workerRestarts += 1
        for (user, intent) in intents where intent == .logout { mayHaveLoggedOut.insert(user) }
        summary.storesChecked += outcome.storesChecked
        for problem in outcome.storeProblems { violation(\.undecodableStores, problem) }
    }

    mutating func storeProblems(_ problems: [String], checked: Int) {
        summary.storesChecked += checked
        for problem in problems { violation(\.undecodableStores, problem) }
    }

    mutating func absorb(_ report: HostReport) {
        summary.counters.add(report.counters)
        for violation in report.violations {
            switch violation.kind {
            case .renewalOverlap: self.violation(\.renewalOverlaps, "\(violation.user): \(violation.detail)")
            case .streamMismatch: self.violation(\.streamMismatches, "\(violation.user): \(violation.detail)")
            case .secretInLog: self.violation(\.secretsInLogs, "\(violation.user): \(violation.detail)")
            }
        }
        for transition in report.transitions { judge(transition) }
        for (user, state) in report.states {
            if state == "established" || state == "tokenExpired" {
                signedIn[user] = true
            } else if state == "notLoggedIn" || state.hasPrefix("terminated") {
                signedIn[user] = false
            }
            mayHaveLoggedOut.remove(user)
        }
    }

    /// A session may end only by a logout, or by an event the provider's rules say ends it.
    private mutating func judge(_ transition: ObservedTransition) {
        let to = transition.to
        guard to == "notLoggedIn" || to.hasPrefix("terminated") else { return }
        let from = transition.from
        // A failed login, or a logout acknowledging a termination: no session was lost.
        if from == "establishing" || from == "notLoggedIn" || from.hasPrefix("terminated") { return }
        if transition.cause == "logout" { return }
        let when = "at \(Int(transition.simulatedTime))"
        if let event = ended[transition.user] {
            summary.legitimateEnds += 1
            summary.endsByCause["\(event) → \(to)", default: 0] += 1
            return
        }
        if from == "start" || from == "restoring" {
            let hadSession = transition.priorState.map { $0 == "established" || $0 == "tokenExpired" || $0 == "restoring" }
                ?? (signedIn[transition.user] ?? false)
            if !hadSession || mayHaveLoggedOut.contains(transition.user) { return }
            violation(\.sessionsLostAtRestart, "\(transition.user) \(when): restarted client found \(to) (before: \(transition.priorState ?? "killed worker, last reported signed in")); cause: \(transition.cause ?? "none logged")")
            return
        }
        violation(\.wrongfulLogouts, "\(transition.user) \(when): \(from) → \(to) with no ban, deletion or logout; cause: \(transition.cause ?? "none logged")")
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
