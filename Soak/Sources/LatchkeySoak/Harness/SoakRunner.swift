internal import Foundation
internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeySecrets

/// The parent: starts the emulator, creates each driver's users, arms the faults, and
/// runs the simulated days in lockstep steps — the emulator's clock and every process's
/// `ManualClock` move together — across its own users and its worker processes, killing
/// workers on schedule; then judges every report and returns the figures.
struct SoakRunner {
    let settings: SoakSettings
    let drivers: [any SoakDriver.Type]
    var progress: (@Sendable (String) -> Void)?

    /// One driver's population: in-process host, worker slots, tracker.
    private final class Population: @unchecked Sendable {
        // Only touched by the runner's sequential loop (tasks it awaits before going on).
        let driver: any SoakDriver
        let users: [SoakUser]
        let host: UserHost
        let workers: [WorkerSlot]
        let workerUsers: [Int: [SoakUser]]
        var tracker: SoakTracker
        var intentRandom: [String: SoakRandom] = [:]

        init(driver: any SoakDriver, users: [SoakUser], host: UserHost, workers: [WorkerSlot], workerUsers: [Int: [SoakUser]]) {
            self.driver = driver
            self.users = users
            self.host = host
            self.workers = workers
            self.workerUsers = workerUsers
            tracker = SoakTracker(driver: driver, users: users.count)
        }
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func run() async throws -> SoakReport {
        let began = ContinuousClock.now
        try prepareDirectory()
        // The key file is made once here, before any client or worker races to make it.
        let warmup = try EncryptedFileSecretStore(
            namespace: "soak.warmup",
            configuration: SecretStoreConfiguration(
                dataDirectory: SoakPaths.data(settings.directory), configDirectory: SoakPaths.config(settings.directory)))
        try await warmup.set("warmup", [1])
        try await warmup.remove("warmup")
        var seed = EmulatorSeed.standard
        for driver in drivers { driver.configure(&seed, settings: settings) }
        var providers: [EmulatorProvider] = []
        for driver in drivers where !providers.contains(driver.provider) { providers.append(driver.provider) }
        let emulator = try await Emulator.start(EmulatorOptions(providers: providers, seed: seed, faultSeed: settings.seed, clockStart: Self.start))
        // Stopped before the report is returned, not by a task left running: the command
        // prints the report and exits next, and the process would exit in the middle of
        // the servers' graceful shutdown, their threads still at work.
        let report: SoakReport
        do { report = try await run(on: emulator, began: began) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
        return report
    }

    private func run(on emulator: Emulator, began: ContinuousClock.Instant) async throws -> SoakReport {
        let control = emulator.control

        var populations: [Population] = []
        var armedRoutes: Set<EmulatorRoute> = []
        for driverType in drivers {
            let endpoint = try driverType.endpoint(of: emulator)
            let driver = try driverType.init(endpoint: endpoint)
            let users = try await driver.createUsers(settings.users, control: control)
            await armFaults(driver, control: control, armed: &armedRoutes)
            let workerCount = min(settings.workers, users.count / max(1, settings.usersPerWorker))
            var workerUsers: [Int: [SoakUser]] = [:]
            var workers: [WorkerSlot] = []
            for index in 0..<workerCount {
                let slice = Array(users[(index * settings.usersPerWorker)..<((index + 1) * settings.usersPerWorker)])
                workerUsers[index] = slice
                workers.append(WorkerSlot(index: index, driver: driver, endpoint: endpoint, settings: settings, users: slice, control: control))
            }
            let local = Array(users.dropFirst(workerCount * settings.usersPerWorker))
            let environment = HostEnvironment(driver: driver, settings: settings, now: Self.start, processIncarnation: 0)
            let population = Population(
                driver: driver, users: users, host: UserHost(environment: environment, users: local),
                workers: workers, workerUsers: workerUsers)
            for user in users { population.intentRandom[user.id] = SoakRandom(seed: settings.seed, stream: "intents/\(driverType.name)/\(user.id)") }
            population.tracker.absorb(await population.host.startAll(step: -1))
            for worker in workers { population.tracker.absorb(try await worker.start(now: Self.start.timeIntervalSince1970)) }
            populations.append(population)
        }
        await control.resetRequestLog()

        var events = SoakRandom(seed: settings.seed, stream: "events")
        var kills = SoakRandom(seed: settings.seed, stream: "kills")
        var now = Self.start.timeIntervalSince1970
        let drainSteps = 4
        let total = settings.steps + drainSteps
        for step in 0..<total {
            let active = step < settings.steps
            now += settings.stepSeconds
            control.advanceClock(by: settings.stepSeconds)
            // Every decision drawn in order first (events, intents, kills), then the
            // populations run their step side by side.
            var work: [(Population, HostCommand, [(kill: Bool, after: Duration)])] = []
            for population in populations {
                if active { try await performEvents(population, step: step, random: &events, control: control) }
                var intents: [String: SoakIntent] = [:]
                for user in population.users {
                    let intent = Self.intent(&population.intentRandom[user.id, default: SoakRandom(seed: 0, stream: "")])
                    if active { intents[user.id] = intent }
                }
                let command = HostCommand(kind: .step, step: step, now: now, intents: intents)
                let plans = population.workers.map { _ in
                    (kill: active && kills.chance(settings.killRate), after: Duration.milliseconds(Int(kills.unit() * 40)))
                }
                work.append((population, command, plans))
            }
            let results = await withTaskGroup(of: (Int, HostReport, [WorkerSlot.Outcome]).self) { group in
                for (index, (population, command, plans)) in work.enumerated() {
                    group.addTask { (index, await population.host.run(command), await Self.runWorkers(population, command, plans)) }
                }
                var all: [(Int, HostReport, [WorkerSlot.Outcome])] = []
                for await result in group { all.append(result) }
                return all.sorted { $0.0 < $1.0 }
            }
            for (index, local, outcomes) in results {
                let population = populations[index]
                population.tracker.absorb(local)
                for outcome in outcomes { absorb(outcome, into: population) }
                await resolveUnexplained(population, control: control)
            }
            try await tallyEmulator(populations, control: control, step: step)
            if step % 50 == 0 || step == total - 1 {
                let elapsed = began.duration(to: .now).components.seconds
                progress?("step \(step + 1)/\(total), simulated hour \(Int(Double(step + 1) * settings.stepMinutes / 60)), \(elapsed) s")
            }
        }

        var report = SoakReport(seed: settings.seed, settings: settings)
        for population in populations {
            population.tracker.absorb(await population.host.finish(step: total))
            for worker in population.workers { absorb(await worker.finish(step: total, now: now), into: population) }
            await resolveUnexplained(population, control: control)
            population.tracker.inspected(
                await StoreInspector(driver: population.driver, settings: settings).inspect(population.users, control: control))
            population.tracker.finish(simulatedHours: Double(total) * settings.stepMinutes / 60, steps: total)
        }
        try await tallyEmulator(populations, control: control, step: total)
        report.drivers = populations.map(\.tracker.summary)
        let elapsed = began.duration(to: .now).components
        report.wallSeconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return report
    }

    /// One step of a population's workers, each killed or not as planned.
    private static func runWorkers(
        _ population: Population, _ command: HostCommand, _ plans: [(kill: Bool, after: Duration)]
    ) async
        -> [WorkerSlot.Outcome]
    {
        await withTaskGroup(of: (Int, WorkerSlot.Outcome).self) { group in
            for (index, worker) in population.workers.enumerated() {
                let plan = plans[index]
                let own = command.intents.filter { intent in population.workerUsers[index]?.contains { $0.id == intent.key } ?? false }
                let workerCommand = HostCommand(kind: .step, step: command.step, now: command.now, intents: own)
                group.addTask { (index, await worker.step(workerCommand, kill: plan.kill, killAfter: plan.after)) }
            }
            var all: [(Int, WorkerSlot.Outcome)] = []
            for await outcome in group { all.append(outcome) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Asks the driver about each session end the tracker could not explain (Auth0: a
    /// rotation lost to a kill or in transit), reading the user's ledger.
    private func resolveUnexplained(_ population: Population, control: EmulatorControl) async {
        let driver = population.driver
        for end in population.tracker.takeUnexplained() {
            var explanation: EndExplanation?
            if driver.tracksRefreshTokens, let user = population.users.first(where: { $0.id == end.user }) {
                let ledger = RefreshLedger.read(SoakPaths.ledger(settings.directory, driver: type(of: driver).name, user: user.id))
                explanation = await driver.explainEnd(of: user, ledger: ledger, control: control)
            }
            population.tracker.resolve(end, explanation)
        }
    }

    private func absorb(_ outcome: WorkerSlot.Outcome, into population: Population) {
        if let intents = outcome.killedIntents { population.tracker.killed(intents: intents, outcome: outcome) }
        for report in outcome.reports { population.tracker.absorb(report) }
        if let failure = outcome.failure { population.tracker.failure(failure) }
    }

    /// What a user does this step: mostly nothing; using the app (which logs in when
    /// signed out), asking for a token, logging in, restarting, logging out.
    static func intent(_ random: inout SoakRandom) -> SoakIntent {
        let draw = random.unit()
        switch draw {
        case ..<0.55: return .idle
        case ..<0.80: return .use
        case ..<0.86: return .token
        case ..<0.92: return .login
        case ..<0.95: return .restart
        case ..<0.965: return .logout
        default: return .idle
        }
    }

    /// Bans, deletions, revocations and expiries, each with its chance per step, on a user
    /// not already banned or deleted. A revocation or deletion goes into the user's
    /// refresh-token ledger first (the families it revokes are revoked on purpose).
    private func performEvents(_ population: Population, step: Int, random: inout SoakRandom, control: EmulatorControl) async throws {
        let rates = [
            (SoakEvent.ban, settings.banRate), (.delete, settings.deleteRate), (.revokeSessions, settings.revokeRate),
            (.expireSessions, settings.expireRate),
        ].map { ($0.0, $0.1 * settings.eventRateScale) }
        for (event, rate) in rates where population.driver.events.contains(event) {
            guard random.chance(rate) else { continue }
            let candidates = population.users.filter { !population.tracker.hasEnded($0.id) }
            guard !candidates.isEmpty else { continue }
            let user = candidates[Int(random.unit() * Double(candidates.count))]
            population.tracker.performing(event, on: user.id)
            if settings.keepLogs {
                EmulatorLogLines.append(
                    step: step, event: event, driver: type(of: population.driver).name, user: user.id, to: SoakPaths.emulatorLog(settings.directory))
            }
            if population.driver.tracksRefreshTokens, event == .revokeSessions || event == .delete {
                let path = SoakPaths.ledger(settings.directory, driver: type(of: population.driver).name, user: user.id)
                RefreshLedger.append([RefreshLedger.Entry(.event)], to: path)
            }
            try await population.driver.perform(event, on: user, control: control)
        }
    }

    /// Faults on every route the driver names: each kind with the configured chance.
    private func armFaults(_ driver: any SoakDriver, control: EmulatorControl, armed: inout Set<EmulatorRoute>) async {
        let kinds: [EmulatorFault.Kind] = [
            .status(500), .status(503), .status(429), .delay(milliseconds: settings.delayMilliseconds),
            .dropConnection, .malformedBody,
        ]
        for route in driver.faultRoutes where armed.insert(route).inserted {
            for kind in kinds { await control.inject(EmulatorFault(route: route, kind: kind, trigger: .probability(settings.faultRate))) }
        }
    }

    /// Requests and faults the emulator saw since the last tally (every process is quiet).
    /// With `--keep-logs` the request log and the Auth0 refresh log (each applied refresh
    /// grant with its token's family and generation, a late one included) are kept in the
    /// run directory, so a revoked family can be matched to the request that revoked it.
    private func tallyEmulator(_ populations: [Population], control: EmulatorControl, step: Int) async throws {
        for population in populations {
            let records = await control.requests(provider: type(of: population.driver).provider).filter(population.driver.counts)
            var faults: [String: Int] = [:]
            for record in records { if let fault = record.fault { faults[fault, default: 0] += 1 } }
            population.tracker.record(faults: faults, requests: records.count)
        }
        let refreshes = drivers.contains { $0.provider == .auth0 } ? (try? await control.takeAuth0RefreshLog()) ?? [] : []
        if settings.keepLogs {
            EmulatorLogLines.append(
                step: step, requests: await control.requests(), refreshes: refreshes,
                to: SoakPaths.emulatorLog(settings.directory))
        }
        await control.resetRequestLog()
    }

    private func prepareDirectory() throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: settings.directory)
        for path in [
            settings.directory, SoakPaths.data(settings.directory), SoakPaths.config(settings.directory), SoakPaths.locks(settings.directory),
            SoakPaths.ledgers(settings.directory), SoakPaths.logs(settings.directory),
        ] {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }
}
