internal import Foundation
internal import Glibc
internal import LatchkeyEmulator

/// The parent's handle on one worker process: starts it (again), sends it steps, and
/// kills it with SIGKILL in the middle of one when the schedule says so — then reads
/// its users' stores as they were left, and starts a new worker on them.
actor WorkerSlot {
    /// What a step of this slot produced.
    struct Outcome: Sendable {
        var reports: [HostReport] = []
        /// The intents of a step whose process was killed (their reports are lost).
        var killedIntents: [String: SoakIntent]?
        /// What reading the killed worker's stores found.
        var findings = StoreInspector.Findings()
        var failure: String?
    }

    let index: Int
    let driverName: String
    let endpoint: SoakEndpoint
    let settings: SoakSettings
    let users: [SoakUser]
    private let inspector: StoreInspector
    private let tracksRefreshTokens: Bool
    private let control: EmulatorControl
    private var incarnation = 0
    private var process: Process?
    private var input: FileHandle?
    private var output: LineReader?

    init(index: Int, driver: any SoakDriver, endpoint: SoakEndpoint, settings: SoakSettings, users: [SoakUser], control: EmulatorControl) {
        self.index = index
        driverName = type(of: driver).name
        self.endpoint = endpoint
        self.settings = settings
        self.users = users
        inspector = StoreInspector(driver: driver, settings: settings)
        tracksRefreshTokens = driver.tracksRefreshTokens
        self.control = control
    }

    /// Starts the worker at simulated time `now` and returns its first report.
    func start(now: Double) async throws -> HostReport {
        incarnation += 1
        let configuration = WorkerConfiguration(
            driver: driverName, endpoint: endpoint, settings: settings, users: users, now: now,
            incarnation: incarnation)
        let path = settings.directory + "/worker-\(driverName)-\(index).json"
        try JSONEncoder().encode(configuration).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["--worker", path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        let errorPath = settings.directory + "/worker-\(driverName)-\(index).stderr"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        output = LineReader(stdout.fileHandleForReading)
        guard let report = try await receive() else { throw SoakError("worker \(index) exited before its first report (see \(errorPath))") }
        return report
    }

    /// How long a worker may take to answer a command: a step settles within 20 s, so a
    /// worker silent for this long is stuck (soak seed 121 once waited 28 minutes).
    static let replyLimit = Duration.seconds(180)

    /// Runs one step; with `kill`, SIGKILLs the worker `killAfter` into it, checks its
    /// users' stores and starts a new worker. A worker that gives no report within
    /// ``replyLimit`` has its threads' stacks saved (when `gdb` is installed) and is killed
    /// and replaced the same way, with a harness failure naming the step.
    func step(_ command: HostCommand, kill: Bool, killAfter: Duration) async -> Outcome {
        var outcome = Outcome()
        do {
            try send(command)
            if !kill {
                switch await output?.next(within: Self.replyLimit) ?? .closed {
                case .line(let line):
                    outcome.reports.append(try Self.report(line))
                    return outcome
                case .closed: throw SoakError("worker \(index) died in step \(command.step)")
                case .timedOut:
                    outcome.failure =
                        "worker \(driverName)-\(index) gave no report \(Self.replyLimit) into step \(command.step)\(saveStacks(step: command.step)); killed and restarted"
                }
            } else {
                try? await Task.sleep(for: killAfter)
            }
            terminate()
            outcome.killedIntents = command.intents
            if tracksRefreshTokens {
                for user in users {
                    RefreshLedger.append([RefreshLedger.Entry(.killed)], to: SoakPaths.ledger(settings.directory, driver: driverName, user: user.id))
                }
            }
            outcome.findings = await inspector.inspect(users, control: control)
            outcome.reports.append(try await start(now: command.now))
        } catch {
            outcome.failure = [outcome.failure, "\(error)"].compactMap(\.self).joined(separator: "; ")
        }
        return outcome
    }

    /// Writes every thread's stack of the stuck worker next to its stderr; the text to add
    /// to the failure (where it went), empty without `gdb`.
    private func saveStacks(step: Int) -> String {
        guard let process else { return "" }
        let path = settings.directory + "/worker-\(driverName)-\(index)-step\(step).stacks"
        return StackDump.save(pids: [process.processIdentifier], to: path) ? " (stacks in \(path))" : ""
    }

    /// Asks the worker to shut its clients down and report; then it exits.
    func finish(step: Int, now: Double) async -> Outcome {
        var outcome = Outcome()
        do {
            try send(HostCommand(kind: .finish, step: step, now: now))
            switch await output?.next(within: Self.replyLimit) ?? .closed {
            case .line(let line): outcome.reports.append(try Self.report(line))
            case .closed: break
            case .timedOut:
                outcome.failure = "worker \(driverName)-\(index) did not finish within \(Self.replyLimit)\(saveStacks(step: step)); killed"
                terminate()
                return outcome
            }
            process?.waitUntilExit()
        } catch {
            outcome.failure = "\(error)"
        }
        return outcome
    }

    private func terminate() {
        guard let process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input?.close()
        self.process = nil
    }

    private func send(_ command: HostCommand) throws {
        guard let input else { throw SoakError("worker \(index) is not running") }
        var data = try JSONEncoder().encode(command)
        data.append(0x0A)
        try input.write(contentsOf: data)
    }

    private func receive() async throws -> HostReport? {
        switch await output?.next(within: Self.replyLimit) ?? .closed {
        case .line(let line): return try Self.report(line)
        case .closed: return nil
        case .timedOut:
            let stacks = saveStacks(step: -1)
            terminate()
            throw SoakError("worker \(driverName)-\(index) gave no first report within \(Self.replyLimit)\(stacks); killed")
        }
    }

    /// A worker's report line.
    private static func report(_ line: String) throws -> HostReport {
        try JSONDecoder().decode(HostReport.self, from: Data(line.utf8))
    }

    /// This executable: workers are the same binary run with `--worker`.
    static func executable() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
