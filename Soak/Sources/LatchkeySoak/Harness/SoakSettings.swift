/// How big and how hostile a soak run is. Workers receive the same settings.
struct SoakSettings: Codable, Sendable {
    /// Seeds every decision: users' intents, events, kills, store and emulator faults.
    var seed: UInt64 = 1
    /// Users per driver.
    var users = 100
    /// Simulated days.
    var days = 7.0
    /// Simulated minutes per step (the clocks advance in lockstep by this much).
    var stepMinutes = 10.0
    /// Worker processes per driver, each hosting ``usersPerWorker`` of its users.
    var workers = 2
    /// Users each worker hosts.
    var usersPerWorker = 16
    /// Chance per worker per step of a SIGKILL during that step.
    var killRate = 0.03
    /// Chance per request per fault kind per route.
    var faultRate = 0.012
    /// Chance per store read, write or removal of an injected failure.
    var storeFaultRate = 0.03
    /// Chance per step that one user is banned / deleted / has their sessions revoked /
    /// expired (times ``eventRateScale``).
    var banRate = 0.008
    var deleteRate = 0.005
    var revokeRate = 0.03
    var expireRate = 0.02
    /// The client transport's timeout, and the injected delay that exceeds it (real time).
    var timeoutMilliseconds = 200
    var delayMilliseconds = 300
    /// The clients' heartbeat.
    var heartbeatMinutes = 30
    /// The emulator's access-token lifetime (social.plus), in minutes.
    var tokenLifetimeMinutes = 360
    /// How far every client's clock is ahead of the emulator's (negative: behind), in
    /// seconds: schedules must come from lifetimes, not the server's absolute times.
    var skewSeconds = 0.0
    /// How many users act at once in one process.
    var concurrency = 16
    /// Whether each user's client log lines are kept in `<directory>/logs` (with
    /// `--directory`, to read after a failing run).
    var keepLogs = false
    /// Scales the chance of every event (ban, deletion, revocation, expiry).
    var eventRateScale = 1.0
    /// Where the stores live (the encrypted-file backend: shared with workers).
    var directory = "/tmp/latchkey-soak"

    /// The configuration `make soak` runs: 100 users per provider × 7 simulated days.
    static let long = SoakSettings()

    /// The configuration the test suite runs: a dozen users over one simulated day, with
    /// faults, kills and events dense enough that each happens.
    static var short: SoakSettings {
        var settings = SoakSettings()
        settings.users = 12
        settings.days = 1
        settings.stepMinutes = 15
        settings.workers = 1
        settings.usersPerWorker = 4
        settings.killRate = 0.1
        settings.faultRate = 0.02
        settings.storeFaultRate = 0.05
        settings.banRate = 0.04
        settings.deleteRate = 0.03
        settings.revokeRate = 0.1
        settings.expireRate = 0.08
        settings.tokenLifetimeMinutes = 120
        settings.heartbeatMinutes = 20
        return settings
    }

    /// Steps in the run.
    var steps: Int { max(1, Int((days * 24 * 60 / stepMinutes).rounded())) }
    /// Seconds per step.
    var stepSeconds: Double { stepMinutes * 60 }
}
