internal import Foundation

/// Each invariant's violations: all must be zero.
struct InvariantFigures: Codable, Sendable {
    /// A session ended with no logout, ban, deletion or other event the provider's rules
    /// say ends it (every transition to `notLoggedIn`/`terminated` is judged).
    var wrongfulLogouts = 0
    /// A restarted client (new `AuthClient`, or a killed and restarted worker) did not find
    /// the session its predecessor had: the stored session was lost.
    var sessionsLostAtRestart = 0
    /// A session-issuing request sent while another of the same user was in flight
    /// (across processes too).
    var renewalOverlaps = 0
    /// A client's state stream differed from the state changes it logged.
    var streamMismatches = 0
    /// A store that did not read or decode after a kill or at the end.
    var undecodableStores = 0
    /// A log line (or a thrown error's text) carrying a secret.
    var secretsInLogs = 0
    /// A stored refresh token (Auth0) older than the newest of its family while a client
    /// of the user held the newer one, with the family not revoked on purpose.
    var refreshTokensLost = 0
    /// A transition the documented diagram lacks, which the client refused (it logs
    /// `illegal session state transition refused`): the core asked for a move its own
    /// state machine does not have.
    var transitionsOffTheDiagram = 0
    /// The session core's transition function, whose state the client publishes, took an
    /// event it refuses or published another state than the actor would (the client logs
    /// `state machine disagrees`): the machine does not yet model the client.
    var machineDisagreements = 0

    var total: Int {
        wrongfulLogouts + sessionsLostAtRestart + renewalOverlaps + streamMismatches + undecodableStores + secretsInLogs + refreshTokensLost
            + transitionsOffTheDiagram + machineDisagreements
    }
}

/// One driver's run.
struct DriverSummary: Codable, Sendable {
    var driver: String
    var users: Int
    /// Whether the provider rotates refresh tokens (the refresh-token rows apply).
    var tracksRefreshTokens = false
    var simulatedHours = 0.0
    var steps = 0
    var emulatorRequests = 0
    var faults: [String: Int] = [:]
    var counters = HostCounters()
    var kills = 0
    var workerRestarts = 0
    var bans = 0
    var deletions = 0
    var revocations = 0
    var expirations = 0
    var legitimateEnds = 0
    /// Ended sessions a restarted client read back from the store: the removal failed
    /// and the worker was killed (or every shutdown try failed) before a retry removed it.
    var resurrectedEnds = 0
    /// Sessions ended because a rotation never reached the client or its store (a kill,
    /// or an answer that came after the client gave up): counted apart, not as wrongful.
    var endsByLostRotation = 0
    /// Rotations the emulator made that no store ever got: the worker was killed first,
    /// or the client had given up on the request.
    var rotationsLostToKills = 0
    var rotationsLostInTransit = 0
    /// Stored refresh tokens checked against the emulator's record.
    var refreshTokensJudged = 0
    var endsByCause: [String: Int] = [:]
    var storesChecked = 0
    var harnessFailures = 0
    var invariants = InvariantFigures()
    var samples: [String] = []
}

/// The whole run.
struct SoakReport: Codable, Sendable {
    var seed: UInt64
    var settings: SoakSettings
    var wallSeconds = 0.0
    var drivers: [DriverSummary] = []

    var violations: Int { drivers.reduce(0) { $0 + $1.invariants.total } }

    /// The summary table.
    func table() -> String {
        var rows: [(String, [String])] = []
        func row(_ name: String, _ value: (DriverSummary) -> String) { rows.append((name, drivers.map(value))) }
        row("users") { "\($0.users)" }
        row("simulated hours") { String(format: "%.0f", $0.simulatedHours) }
        row("steps (\(String(format: "%.0f", settings.stepMinutes)) min)") { "\($0.steps)" }
        row("requests at the emulator") { "\($0.emulatorRequests)" }
        row("client requests (attempts)") { "\($0.counters.clientRequests)" }
        row("  no response (timeouts, drops)") { "\($0.counters.transportFailures)" }
        let kinds = Set(drivers.flatMap(\.faults.keys)).sorted()
        for kind in kinds { row("fault: \(kind)") { "\($0.faults[kind] ?? 0)" } }
        row("store faults: reads") { "\($0.counters.storeReadFaults) / \($0.counters.storeReads)" }
        row("store faults: writes") { "\($0.counters.storeWriteFaults) / \($0.counters.storeWrites)" }
        row("logins (failed)") { "\($0.counters.logins) (\($0.counters.loginFailures))" }
        row("renewals (answered 2xx)") { "\($0.counters.renewalRequests) (\($0.counters.renewalsSucceeded))" }
        row("authorized sends (failed)") { "\($0.counters.sends) (\($0.counters.sendFailures))" }
        row("restarts (verified by a request)") { "\($0.counters.restarts) (\($0.counters.restartsVerified))" }
        row("worker kills (SIGKILL)") { "\($0.kills)" }
        row("logouts") { "\($0.counters.logouts)" }
        row("bans / deletions / revocations / expiries") { "\($0.bans) / \($0.deletions) / \($0.revocations) / \($0.expirations)" }
        row("sessions ended by an event") { "\($0.legitimateEnds)" }
        row("ended sessions read back at a restart") { "\($0.resurrectedEnds)" }
        row("stores read after kills and at the end") { "\($0.storesChecked)" }
        row("stored refresh tokens judged") { $0.tracksRefreshTokens ? "\($0.refreshTokensJudged)" : "-" }
        row("rotations lost: to a kill / in transit") { s in
            s.tracksRefreshTokens ? "\(s.rotationsLostToKills) / \(s.rotationsLostInTransit)" : "-"
        }
        row("sessions ended by a lost rotation") { $0.tracksRefreshTokens ? "\($0.endsByLostRotation)" : "-" }
        row("clients' streams compared") { "\($0.counters.incarnationsCompared)" }
        row("log lines scanned") { "\($0.counters.logLines)" }
        row("INVARIANT wrongful logouts") { "\($0.invariants.wrongfulLogouts)" }
        row("INVARIANT sessions lost at restart") { "\($0.invariants.sessionsLostAtRestart)" }
        row("INVARIANT overlapping renewals") { "\($0.invariants.renewalOverlaps)" }
        row("INVARIANT stream ≠ state changes") { "\($0.invariants.streamMismatches)" }
        row("INVARIANT undecodable stores") { "\($0.invariants.undecodableStores)" }
        row("INVARIANT secrets in logs") { "\($0.invariants.secretsInLogs)" }
        row("INVARIANT refresh tokens lost") { $0.tracksRefreshTokens ? "\($0.invariants.refreshTokensLost)" : "-" }
        row("INVARIANT off-diagram transitions") { "\($0.invariants.transitionsOffTheDiagram)" }
        row("INVARIANT machine ≠ client") { "\($0.invariants.machineDisagreements)" }
        let width = rows.map(\.0.count).max() ?? 10
        // Each driver's column as wide as its widest value.
        let columns = drivers.indices.map { index in rows.map { $0.1[index].count }.max().map { max($0, drivers[index].driver.count) } ?? 0 }
        func line(_ name: String, _ values: [String]) -> String {
            name.padding(toLength: width, withPad: " ", startingAt: 0)
                + zip(values, columns).map { " | " + $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined()
        }
        let header = line("", drivers.map(\.driver))
        var lines = [header, String(repeating: "-", count: header.count)]
        for (name, values) in rows { lines.append(line(name, values)) }
        lines.append("seed \(seed), wall time \(String(format: "%.1f", wallSeconds)) s")
        return lines.joined(separator: "\n")
    }
}
