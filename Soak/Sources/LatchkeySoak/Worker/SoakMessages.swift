/// What the parent and its worker processes say to each other, one JSON object a line
/// (stdin: commands; stdout: reports). Internal to the soak: Codable is fine here.

/// What one user does in a step (decided by the parent from its seeded generator).
enum SoakIntent: String, Codable, Sendable {
    case idle, login, use, token, restart, logout
}

/// A command to a host.
struct HostCommand: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case step, finish }
    var kind: Kind
    var step: Int
    /// The simulated time to advance to (seconds since 1970).
    var now: Double
    var intents: [String: SoakIntent] = [:]
}

/// A state change one client logged, with what the harness knows of its cause.
struct ObservedTransition: Codable, Sendable {
    var user: String
    /// `start` for a new client's first state.
    var from: String
    var to: String
    /// `logout` when it happened inside the harness's logout call; otherwise the last
    /// provider error the client logged, if any.
    var cause: String?
    /// For a start: the state the previous client of this user had when it was shut down
    /// in this process; `nil` after a kill (the parent then uses its own record).
    var priorState: String?
    var simulatedTime: Double
}

/// A broken invariant found inside a host.
struct HostViolation: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case renewalOverlap, streamMismatch, secretInLog, offTheDiagram, machineDisagrees }
    var kind: Kind
    var user: String
    var detail: String
}

/// Figures a host adds up; the parent sums them over hosts and steps.
struct HostCounters: Codable, Sendable {
    var clientRequests = 0
    var transportFailures = 0
    var logins = 0
    var loginFailures = 0
    var renewalRequests = 0
    var renewalsSucceeded = 0
    var sends = 0
    var sendFailures = 0
    var tokens = 0
    var restarts = 0
    var restartsVerified = 0
    var logouts = 0
    var storeReads = 0
    var storeWrites = 0
    var storeReadFaults = 0
    var storeWriteFaults = 0
    var logLines = 0
    var incarnationsCompared = 0
    var errorCodes: [String: Int] = [:]

    mutating func add(_ other: HostCounters) {
        clientRequests += other.clientRequests
        transportFailures += other.transportFailures
        logins += other.logins
        loginFailures += other.loginFailures
        renewalRequests += other.renewalRequests
        renewalsSucceeded += other.renewalsSucceeded
        sends += other.sends
        sendFailures += other.sendFailures
        tokens += other.tokens
        restarts += other.restarts
        restartsVerified += other.restartsVerified
        logouts += other.logouts
        storeReads += other.storeReads
        storeWrites += other.storeWrites
        storeReadFaults += other.storeReadFaults
        storeWriteFaults += other.storeWriteFaults
        logLines += other.logLines
        incarnationsCompared += other.incarnationsCompared
        errorCodes.merge(other.errorCodes, uniquingKeysWith: +)
    }
}

/// A host's answer to a command (and, from a fresh worker, its first words).
struct HostReport: Codable, Sendable {
    var step: Int
    /// Each user's state at the end of the step.
    var states: [String: String]
    var transitions: [ObservedTransition]
    var violations: [HostViolation]
    var counters: HostCounters
}

/// Everything a worker process needs, written by the parent to a file.
struct WorkerConfiguration: Codable, Sendable {
    var driver: String
    var endpoint: SoakEndpoint
    var settings: SoakSettings
    var users: [SoakUser]
    /// The simulated time the worker starts at.
    var now: Double
    /// How many times this worker slot was started (seeds its store faults).
    var incarnation: Int
}
