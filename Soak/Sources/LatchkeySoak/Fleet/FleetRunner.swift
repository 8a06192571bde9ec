internal import Foundation
internal import Glibc
internal import Latchkey
internal import LatchkeyAuth0
internal import LatchkeyEmulator
internal import LatchkeyPostgres

/// The fleet soak (`latchkey-soak --fleet`, `make soak-fleet`): several server instances,
/// each a process running a ``SessionHost``, share the users' sessions on one private
/// PostgreSQL server (Scripts/with-postgres.sh) against the emulator's Auth0 tenant with
/// refresh-token rotation on (and no reuse interval unless asked), while the parent kills instances with
/// SIGKILL (and starts them again), kills the database server with SIGKILL (and restarts
/// it), and drops every connection of the instances (`pg_terminate_backend`). Then
/// ``FleetJudge`` checks the invariants.
struct FleetRunner {
    var users = 100
    var instances = 3
    var seconds = 120.0
    /// Concurrent uses per instance.
    var concurrency = 8
    /// Each instance's host capacity (below the user count, so clients leave and come back).
    var capacity: Int?
    /// Seconds between two instance kills.
    var killEvery = 20.0
    /// Seconds between two drops of every connection.
    var dropEvery = 7.0
    /// Seconds between two cuts of an instance's network link (in namespaces only), and
    /// how long a cut lasts.
    var cutEvery = 11.0
    var cutLength = 3.0
    /// The tenant's refresh-token reuse interval (Auth0's rotation overlap period), in
    /// seconds; 0 (Auth0's default): a spent token presented again revokes its family.
    var reuseInterval = 0
    /// Whether each instance writes its trace (``FleetTrace``) into the run's directory.
    var trace = false
    var directory: String
    var progress: @Sendable (String) -> Void = { _ in }

    init(directory: String) {
        self.directory = directory
    }

    func run() async throws -> FleetReport {
        let environment = ProcessInfo.processInfo.environment
        guard let databaseURL = environment["LATCHKEY_TEST_POSTGRES_URL"], !databaseURL.isEmpty else {
            throw SoakError("the fleet soak needs a PostgreSQL server: run it under Scripts/with-postgres.sh (make soak-fleet)")
        }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let paths = FleetPaths(directory: directory)
        let network = FleetNetwork(environment: environment, instances: instances)
        let database = FleetDatabase(
            url: databaseURL, restartScript: environment["LATCHKEY_TEST_POSTGRES_RESTART"],
            dataDirectory: environment["LATCHKEY_TEST_POSTGRES_DATA"])

        let seed = Auth0Seed(
            clientID: "latchkey-fleet", rotateRefreshTokens: true, accessTokenLifetime: 90, refreshTokenReuseInterval: reuseInterval,
            userInfoBurst: 1_000_000, userInfoPerMinute: 1_000_000,
            users: (0..<users).map {
                Auth0Seed.User(userID: FleetConfiguration.tenantUserID($0), email: "fleet\($0)@example.com", password: "fleet-password-\($0)")
            })
        var emulatorOptions = EmulatorOptions(
            providers: [.auth0], host: network.hostAddress ?? "127.0.0.1", allowNonLoopback: network.hostAddress != nil)
        emulatorOptions.seed.auth0 = seed
        let emulator = try await Emulator.start(emulatorOptions)
        defer { Task { await emulator.stop() } }
        guard let auth0 = emulator.auth0 else { throw SoakError("the emulator has no Auth0 tenant") }
        // In namespaces the emulator listens on the links' address, and every process
        // (the parent too) reaches it through a relay on its own loopback.
        var baseURL = auth0.baseURL.absoluteString
        if let address = network.hostAddress, let port = auth0.baseURL.port {
            try await FleetRelay.start(port: port, target: address)
            baseURL = baseURL.replacingOccurrences(of: "//\(address):", with: "//127.0.0.1:")
        }
        var configuration = FleetConfiguration(
            instance: 0, domain: auth0.domain, baseURL: baseURL, clientID: auth0.clientID,
            databaseURL: network.databaseURL(databaseURL), users: users, capacity: capacity ?? max(10, users / 2),
            concurrency: concurrency, directory: directory)
        configuration.relayTarget = network.hostAddress
        configuration.trace = trace

        progress("signing \(users) users in")
        try await signIn(configuration, connection: auth0.connection, paths: paths)
        let canary = "fleetcanary" + (0..<4).map { _ in String(UInt64.random(in: 0 ... .max), radix: 36) }.joined()
        let canaryWritten = await offPool {
            database.sql("CREATE TABLE IF NOT EXISTS fleet_canary (t text); INSERT INTO fleet_canary VALUES ('\(canary)')") != nil
        }

        var report = FleetReport(users: users, instances: instances, seconds: seconds)
        report.network = network.description
        var processes: [FleetProcess] = []
        for index in 0..<instances { processes.append(try spawn(index, configuration, paths, network)) }
        progress("\(instances) instances started (\(network.description)); faults for \(Int(seconds)) s")
        try await faults(&processes, &report, database: database, network: network, configuration: configuration, paths: paths)

        progress("stopping the instances")
        _ = FileManager.default.createFile(atPath: paths.stop, contents: Data())
        for process in processes {
            let deadline = ContinuousClock.now.advanced(by: .seconds(90))
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
            if process.isRunning {
                report.notes.append("an instance did not stop within 90 s; killed")
                process.kill(SIGKILL)
                while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        progress("judging")
        var judge = FleetJudge(configuration: configuration, paths: paths, control: emulator.control)
        try await judge.judge(into: &report, dataDirectory: database.dataDirectory, canary: canaryWritten ? canary : nil)
        return report
    }

    /// Signs every user in once, through a host of the parent's own on the shared database.
    private func signIn(_ configuration: FleetConfiguration, connection: String, paths: FleetPaths) async throws {
        var parent = configuration
        parent.capacity = users
        parent.instance = -1
        let database = try parent.database()
        defer { database.shutdown() }
        let host = try parent.host(database: database, transport: FleetTransport(base: URLSessionTransport(), secretsPath: paths.secrets(-1)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<users {
                if index >= 8 { try await group.next() }
                group.addTask {
                    let credentials = Auth0Credentials.password(
                        username: "fleet\(index)@example.com", password: "fleet-password-\(index)",
                        realm: connection)
                    try await host.login(credentials, for: FleetConfiguration.userID(index))
                }
            }
            try await group.waitForAll()
        }
        await host.shutdown()
    }

    private func spawn(_ index: Int, _ configuration: FleetConfiguration, _ paths: FleetPaths, _ network: FleetNetwork) throws -> FleetProcess {
        var mine = configuration
        mine.instance = index
        try JSONEncoder().encode(mine).write(to: URL(fileURLWithPath: paths.configuration(index)))
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let (program, arguments) = network.command(index, executable, ["--fleet-instance", paths.configuration(index)])
        return try FleetProcess.spawn(program, arguments, standardError: paths.standardError(index))
    }

    /// The faults, until the run's time is up: an instance killed every `killEvery`
    /// seconds (a random one, mid-work: renewals run all the time) and started again a
    /// second later; every connection dropped every `dropEvery` seconds; the database
    /// server killed once, at 40% of the run, and restarted; in network namespaces, an
    /// instance's link cut every `cutEvery` seconds for `cutLength` (its connections stall
    /// rather than end: nothing tells either side).
    private func faults(
        _ processes: inout [FleetProcess], _ report: inout FleetReport, database: FleetDatabase, network: FleetNetwork,
        configuration: FleetConfiguration, paths: FleetPaths
    ) async throws {
        let began = ContinuousClock.now
        func elapsed() -> Double {
            let (seconds, attoseconds) = began.duration(to: .now).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
        var nextKill = killEvery, nextDrop = dropEvery, nextCut = cutEvery, databaseKilled = false
        while elapsed() < seconds {
            try await Task.sleep(for: .milliseconds(250))
            for index in processes.indices where !processes[index].isRunning {
                report.notes.append("instance \(index) exited by itself (status \(processes[index].terminationStatus)); started again")
                processes[index] = try spawn(index, configuration, paths, network)
            }
            if !network.links.isEmpty, elapsed() >= nextCut {
                nextCut += cutEvery
                let index = Int.random(in: 0..<processes.count)
                if network.setLink(index, up: false) {
                    report.networkCuts += 1
                    report.databaseFaults.append(FleetDatabaseFault(what: "instance \(index)'s link cut", date: Date()))
                    // Up again on its own: the other faults keep their own schedule.
                    let length = cutLength
                    Task {
                        try? await Task.sleep(for: .seconds(length))
                        _ = await offPool { network.setLink(index, up: true) }
                    }
                } else {
                    report.notes.append("instance \(index)'s link could not be cut")
                }
            }
            if elapsed() >= nextKill {
                nextKill += killEvery
                let index = Int.random(in: 0..<processes.count)
                processes[index].kill(SIGKILL)
                report.kills.append(FleetKill(instance: index, date: Date()))
                while processes[index].isRunning { try await Task.sleep(for: .milliseconds(20)) }
                report.instanceKills += 1
                try await Task.sleep(for: .seconds(1))
                processes[index] = try spawn(index, configuration, paths, network)
                progress("killed instance \(index) (SIGKILL) and started it again")
            }
            if elapsed() >= nextDrop {
                nextDrop += dropEvery
                let dropped = await offPool {
                    database.sql(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            + "WHERE usename = current_user AND pid <> pg_backend_pid()")
                }
                report.connectionDrops += 1
                report.databaseFaults.append(FleetDatabaseFault(what: "connections dropped", date: Date()))
                report.connectionsDropped += Int(dropped?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            }
            if !databaseKilled, elapsed() >= seconds * 0.4 {
                databaseKilled = true
                report.databaseFaults.append(FleetDatabaseFault(what: "server killed", date: Date()))
                if let why = await database.killAndRestart() {
                    report.notes.append("the database server was not killed: \(why)")
                } else {
                    report.databaseKills += 1
                    report.databaseFaults.append(FleetDatabaseFault(what: "server back", date: Date()))
                    progress("killed the database server (SIGKILL) and restarted it")
                }
            }
        }
    }
}

/// The private server the soak runs against: SQL through `psql`, and a SIGKILL of the
/// postmaster followed by Scripts/with-postgres.sh's restart script.
struct FleetDatabase: Sendable {
    let url: String
    let restartScript: String?
    let dataDirectory: String?

    /// Runs `sql` as the test role; its output (tuples only), or nil when it failed.
    func sql(_ sql: String) -> String? {
        guard let psql = Self.psql() else { return nil }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-psql-\(UInt64.random(in: 0 ... .max))").path
        defer { unlink(output) }
        guard let process = try? FleetProcess.spawn(psql, [url, "-X", "-q", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql], standardOutput: output)
        else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: output) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Kills the postmaster with SIGKILL (its backends notice and exit), then runs the
    /// restart script until the server is up again. Returns why not, or nil.
    func killAndRestart() async -> String? {
        guard let restartScript, let dataDirectory else { return "LATCHKEY_TEST_POSTGRES_RESTART or _DATA is not set" }
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = Int32(line.trimmingCharacters(in: .whitespaces))
        else {
            return "no postmaster.pid"
        }
        kill(pid, SIGKILL)
        // The backends hold the shared memory until they notice the postmaster is gone;
        // the restart is refused until then.
        for _ in 0..<30 {
            try? await Task.sleep(for: .seconds(1))
            guard let process = try? FleetProcess.spawn(restartScript, []) else { return "the restart script does not run" }
            while process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
            if process.terminationStatus == 0 { return nil }
        }
        return "the server did not come back within 30 attempts"
    }

    private static func psql() -> String? {
        let candidates =
            ["/usr/bin/psql"]
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/psql" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Runs blocking work (a child process read to its end) on a thread of its own: the
/// cooperative pool has as many threads as cores, and a task blocking one stalls the
/// emulator and every other task of the parent.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
