internal import ArgumentParser
internal import Foundation

/// `latchkey-soak`: many simulated users per provider over simulated days against the
/// emulator over loopback HTTP, with every fault; prints the figures and each
/// invariant's violations, and exits 1 when one is not zero.
@main
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey-soak",
        abstract: "Fault soak: simulated users and days against the emulator, every fault, every invariant counted."
    )

    @Flag(help: "The short configuration (a dozen users, one simulated day) the test suite runs.")
    var short = false
    @Option(help: "The seed of every decision and fault.") var seed: UInt64 = 1
    @Option(help: "Users per provider.") var users: Int?
    @Option(help: "Simulated days.") var days: Double?
    @Option(help: "Simulated minutes per step.") var stepMinutes: Double?
    @Option(help: "Worker processes per provider (killed with SIGKILL and restarted).") var workers: Int?
    @Option(help: "Users per worker process.") var usersPerWorker: Int?
    @Option(help: "The clients' transport timeout in milliseconds (injected delays exceed it by half).") var timeoutMilliseconds: Int?
    @Option(help: "Chance per request, per fault kind and route.") var faultRate: Double?
    @Option(help: "Chance per store read or write of a failure.") var storeFaultRate: Double?
    // Unconditional: a negative value (`--skew -600`) is the value, not another option.
    @Option(
        parsing: .unconditional,
        help: "Seconds every client's clock is ahead of the emulator's (negative: behind), at most a day either way.")
    var skew: Double?
    @Option(help: "Comma-separated drivers (default: all): \(SoakDrivers.all.map { $0.name }.joined(separator: ", ")).") var drivers: String?
    @Option(help: "Multiplies the chance of every event (ban, deletion, revocation, expiry).") var eventRateScale: Double?
    @Option(help: "Where the stores live (removed first; kept after the run).") var directory: String?
    @Flag(help: "Keep each user's client log in <directory>/logs (with --directory).") var keepLogs = false
    @Flag(help: "Print the report as one JSON line after the table.") var json = false
    @Option(help: "Run every seed of FIRST-LAST (e.g. 1-200), each in a child process, and print one table over all of them.")
    var sweep: String?
    @Option(help: "With --sweep: seeds run at once.") var jobs = 2
    @Option(help: "With --sweep: minutes a seed may run before it is stopped as hung (its threads' stacks kept).")
    var seedLimit = 20
    @Option(help: .hidden) var worker: String?
    @Flag(
        help:
            "The fleet soak (Docs/soak.md): server instances as processes sharing users' sessions on PostgreSQL; run under Scripts/with-postgres.sh (make soak-fleet). --users sets the users (default 100)."
    )
    var fleet = false
    @Option(help: "With --fleet: server instances.") var instances = 3
    @Option(help: "With --fleet: seconds of faults.") var seconds = 120.0
    @Option(help: "With --fleet: the tenant's refresh-token reuse interval in seconds (0: reuse revokes the family).") var reuseInterval = 0
    @Flag(help: "With --fleet: each instance writes a trace (its host's, clients' and store's messages) to instance-N.trace in --directory.")
    var trace = false
    @Option(help: .hidden) var fleetInstance: String?

    func run() async throws {
        if let worker {
            try await WorkerMain.run(configurationPath: worker)
            return
        }
        if let fleetInstance {
            try await FleetInstance.run(configurationPath: fleetInstance)
            return
        }
        if fleet {
            try await runFleet()
            return
        }
        if let sweep {
            try await runSweep(sweep)
            return
        }
        var settings = short ? SoakSettings.short : SoakSettings.long
        settings.seed = seed
        if let users { settings.users = users }
        if let days { settings.days = days }
        if let stepMinutes { settings.stepMinutes = stepMinutes }
        if let workers { settings.workers = workers }
        if let usersPerWorker { settings.usersPerWorker = usersPerWorker }
        if let timeoutMilliseconds {
            settings.timeoutMilliseconds = timeoutMilliseconds
            settings.delayMilliseconds = timeoutMilliseconds * 3 / 2
        }
        if let faultRate { settings.faultRate = faultRate }
        if let storeFaultRate { settings.storeFaultRate = storeFaultRate }
        if let eventRateScale { settings.eventRateScale = eventRateScale }
        if let skew {
            guard skew.isFinite, abs(skew) <= 86_400 else { throw ValidationError("--skew takes seconds, at most 86400 either way") }
            settings.skewSeconds = skew
        }
        settings.keepLogs = keepLogs
        settings.directory =
            directory ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
            + "/latchkey-soak-\(ProcessInfo.processInfo.processIdentifier)"
        let chosen: [any SoakDriver.Type]
        if let drivers {
            chosen = try drivers.split(separator: ",").map { name in
                guard let driver = SoakDrivers.named(String(name)) else { throw ValidationError("unknown driver \(name)") }
                return driver
            }
        } else {
            chosen = SoakDrivers.all
        }
        var runner = SoakRunner(settings: settings, drivers: chosen)
        runner.progress = { line in FileHandle.standardError.write(Data("soak: \(line)\n".utf8)) }
        let report = try await runner.run()
        if directory == nil { try? FileManager.default.removeItem(atPath: settings.directory) }
        var output = report.table() + "\n"
        for driver in report.drivers where !driver.samples.isEmpty {
            output += "\n\(driver.driver): first findings\n"
            for sample in driver.samples { output += "  - \(sample)\n" }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            output += String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
        }
        // One unbuffered write, done before the exit: `print` into a pipe keeps the tail of a
        // report longer than stdio's 4 KiB buffer until the exit flushes it, and a process
        // that dies on the way out then leaves a JSON line cut short for `--json` readers.
        try FileHandle.standardOutput.write(contentsOf: Data(output.utf8))
        if report.violations > 0 { throw ExitCode(1) }
    }

    private func runFleet() async throws {
        guard instances >= 1, seconds > 0, (users ?? 100) >= 1 else { throw ValidationError("--instances, --seconds and --users must be positive") }
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var runner = FleetRunner(directory: directory ?? base + "/latchkey-fleet-\(ProcessInfo.processInfo.processIdentifier)")
        runner.users = users ?? 100
        runner.instances = instances
        runner.seconds = seconds
        runner.reuseInterval = reuseInterval
        runner.trace = trace
        runner.progress = { line in FileHandle.standardError.write(Data("fleet: \(line)\n".utf8)) }
        let report = try await runner.run()
        if directory == nil { try? FileManager.default.removeItem(atPath: runner.directory) }
        try FileHandle.standardOutput.write(contentsOf: Data((report.table() + "\n").utf8))
        if report.violations > 0 { throw ExitCode(1) }
    }

    private func runSweep(_ range: String) async throws {
        guard let seeds = SoakSweep.seeds(range) else { throw ValidationError("--sweep takes FIRST-LAST, e.g. 1-200") }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var sweep = SoakSweep(
            seeds: seeds, jobs: jobs, arguments: SoakSweep.childArguments(Array(CommandLine.arguments.dropFirst())),
            directory: directory, seedLimit: .seconds(max(1, seedLimit) * 60))
        sweep.progress = { line in FileHandle.standardError.write(Data("sweep: \(line)\n".utf8)) }
        let began = ContinuousClock.now
        let outcomes = await sweep.run(executable: executable)
        let elapsed = began.duration(to: .now).components
        let summary = SoakSweep.summary(outcomes, wallSeconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        try FileHandle.standardOutput.write(contentsOf: Data((summary + "\n").utf8))
        if outcomes.contains(where: \.failed) { throw ExitCode(1) }
    }
}
