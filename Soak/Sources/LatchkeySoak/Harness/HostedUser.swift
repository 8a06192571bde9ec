internal import Foundation
internal import Latchkey
internal import Synchronization

/// One simulated user inside one process: their current `AuthClient` (a new one at
/// every restart, on the same store), what it recorded, and the intents it carries out.
final class HostedUser: Sendable {
    /// One `AuthClient` of this user and what observes it.
    struct Incarnation: Sendable {
        let client: AuthClient
        let recorder: ClientRecorder
        let stream: Task<Void, Never>
    }

    private struct State {
        var current: Incarnation?
        var retired: [ClientRecorder] = []
        var made = 0
        var busy = false
        var logouts = 0
    }

    let user: SoakUser
    private let environment: HostEnvironment
    private let state = Mutex(State())

    init(user: SoakUser, environment: HostEnvironment) {
        self.user = user
        self.environment = environment
    }

    /// The current client's state, `nil` before the first start.
    var sessionState: SessionState? { state.withLock { $0.current?.client.state } }

    /// Claims the user for one action; `false` while another is still running (parked on
    /// the simulated clock, say).
    func claim() -> Bool {
        state.withLock { state in
            if state.busy { return false }
            state.busy = true
            return true
        }
    }

    func release() { state.withLock { $0.busy = false } }

    /// The transitions and log lines of this user's clients since the last drain.
    func drain() -> (transitions: [ObservedTransition], lines: [String]) {
        let recorders = state.withLock { state -> [ClientRecorder] in
            defer { state.retired = [] }
            return state.retired + (state.current.map { [$0.recorder] } ?? [])
        }
        var transitions: [ObservedTransition] = [], lines: [String] = []
        for recorder in recorders {
            let (t, l) = recorder.drain()
            transitions += t
            lines += l
        }
        return (transitions, lines)
    }

    // MARK: Intents

    func act(_ intent: SoakIntent) async {
        guard let current = state.withLock({ $0.current }) else {
            await restart(counted: false)
            return
        }
        let client = current.client
        let now = client.state
        if case .terminated = now {
            // The app shows the end and signs out; only a logout leaves `terminated`.
            await logout(current)
            return
        }
        switch intent {
        case .idle: break
        case .login:
            if now == .notLoggedIn { await login(current) }
        case .use:
            if Self.isSignedIn(now) { await send(current) } else if now == .notLoggedIn { await login(current) }
        case .token:
            if Self.isSignedIn(now) { await token(current) }
        case .restart:
            await restart(counted: true)
        case .logout:
            if Self.isSignedIn(now) { await logout(current) }
        }
    }

    static func isSignedIn(_ state: SessionState) -> Bool {
        state == .established || state == .tokenExpired
    }

    /// Shuts the current client down (checking its stream against its log) and starts a
    /// new one on the same store — an app restart. With `counted`, the restart is in the
    /// report; the new client's session, when it has one, is used at once (an app that
    /// resumes makes a request).
    func restart(counted: Bool) async {
        let probe = environment.probe
        let previous = state.withLock { state -> Incarnation? in
            defer { state.current = nil }
            return state.current
        }
        var prior: String?
        if let previous {
            await previous.client.shutdown()
            // The state it was left in: a renewal on the wire that shutdown awaited may have
            // ended the session (a revocation's `session_not_found`, judged on its own), and
            // the new client then rightly finds nothing (soak seed 102).
            prior = previous.client.state.description
            await Self.finish(previous, probe: probe, user: user.id)
            state.withLock { $0.retired.append(previous.recorder) }
        }
        let incarnation: Incarnation
        do { incarnation = try await makeIncarnation(prior: prior) } catch {
            probe.update { $0.errorCodes["harness: \(error)", default: 0] += 1 }
            return
        }
        state.withLock { $0.current = incarnation }
        if counted { probe.update { $0.restarts += 1 } }
        do { try await incarnation.client.start() } catch { record(error, in: incarnation) }
        guard counted, Self.isSignedIn(incarnation.client.state) else { return }
        do {
            let response = try await incarnation.client.send(environment.driver.appRequest(for: user))
            if (200..<300).contains(response.status) { probe.update { $0.restartsVerified += 1 } }
        } catch { record(error, in: incarnation) }
    }

    /// Shuts the client down at the end of the run and compares its stream with its log.
    /// A shutdown still running after ``shutdownReportAfter`` is said on stderr, with what
    /// the process's wire holds, and waited for still: soak seed 74 once hung there for 45
    /// minutes with the user's store lock held and nothing else to go on.
    func finish() async {
        guard let current = state.withLock({ $0.current }) else { return }
        let (user, gate) = (user.id, environment.wireGate)
        let watchdog = Task {
            try await Task.sleep(for: Self.shutdownReportAfter)
            let wire = await gate.snapshot
            FileHandle.standardError.write(
                Data(
                    ("soak: the client of \(user) has not shut down after \(Self.shutdownReportAfter); state \(current.client.state); "
                        + "wire: \(wire.free) of \(HostEnvironment.connections) connections free, \(wire.waiting) requests waiting for one\n").utf8))
        }
        await current.client.shutdown()
        watchdog.cancel()
        await Self.finish(current, probe: environment.probe, user: user)
    }

    /// How long a client's shutdown may take before the run says so (a step settles within 20 s).
    static let shutdownReportAfter = Duration.seconds(60)

    private static func finish(_ incarnation: Incarnation, probe: HostProbe, user: String) async {
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await incarnation.stream.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        probe.update { $0.incarnationsCompared += 1 }
        if !finished {
            probe.violation(.streamMismatch, user: user, "the state stream did not finish within 5 s of shutdown")
        } else if let mismatch = incarnation.recorder.streamMismatch() {
            probe.violation(.streamMismatch, user: user, mismatch)
        }
    }

    private func makeIncarnation(prior: String?) async throws -> Incarnation {
        let environment = self.environment
        let driver = environment.driver
        let made = state.withLock { state -> Int in
            state.made += 1
            return state.made
        }
        let logPath =
            environment.settings.keepLogs
            ? SoakPaths.logs(environment.settings.directory) + "/\(type(of: driver).name).\(user.id).log" : nil
        let recorder = ClientRecorder(user: user.id, clock: environment.clock, priorState: prior, logPath: logPath, client: made)
        let storeSettings = environment.storeSettings(for: user)
        let ledgerPath = environment.ledgerPath(for: user)
        var vaultWritten: (@Sendable ([UInt8], Bool) -> Void)?
        if let ledgerPath {
            vaultWritten = { bytes, succeeded in
                guard let token = driver.refreshToken(inVault: bytes) else { return }
                RefreshLedger.append([RefreshLedger.Entry(succeeded ? .saved : .saveFailed, token)], to: ledgerPath)
            }
        }
        var vaultTrace: (@Sendable (String) -> Void)?
        if logPath != nil {
            let clock = environment.clock
            vaultTrace = { event in recorder.note("\(Int(clock.now.timeIntervalSince1970)) trace \(event)") }
        }
        let store = FaultyStore(
            base: try storeSettings.makeStore().store, rate: environment.settings.storeFaultRate,
            random: SoakRandom(
                seed: environment.settings.seed, stream: "store/\(user.id)",
                incarnation: environment.processIncarnation * 100_000 + made),
            probe: environment.probe, vaultEntry: environment.sessionOptions.vaultEntryName, vaultWritten: vaultWritten,
            vaultTrace: vaultTrace)
        let wire = SoakTransport(
            base: environment.wire, gate: environment.wireGate, deadline: .milliseconds(environment.settings.timeoutMilliseconds), driver: driver,
            user: user.id, client: made,
            lockPath: SoakPaths.lock(environment.settings.directory, driver: type(of: driver).name, user: user.id),
            probe: environment.probe, ledger: environment.ledger, isLoggingIn: { recorder.isLoggingIn },
            ledgerPath: ledgerPath)
        let transport = RetryingTransport(wire, clock: environment.clock)
        let configuration = driver.configuration(for: user, store: storeSettings, session: environment.sessionOptions)
        let client = try environment.registry.makeClient(
            configuration, store: store, dependencies: driver.dependencies(for: user),
            transport: transport, clock: environment.clock, logger: recorder.logger())
        // Subscribe before the client publishes anything: the stream must show every change.
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let changes = client.stateChanges
        let stream = Task {
            var iterator = changes.makeAsyncIterator()
            signal.finish()
            while let value = await iterator.next() { recorder.streamed(value) }
        }
        for await _ in subscribed {}
        return Incarnation(client: client, recorder: recorder, stream: stream)
    }

    // MARK: Calls

    private func login(_ current: Incarnation) async {
        current.recorder.setLoggingIn(true)
        defer { current.recorder.setLoggingIn(false) }
        do {
            try await current.client.login(try await environment.driver.credentials(for: user))
            environment.probe.update { $0.logins += 1 }
        } catch {
            environment.probe.update { $0.loginFailures += 1 }
            record(error, in: current)
        }
    }

    private func send(_ current: Incarnation) async {
        do {
            let response = try await current.client.send(environment.driver.appRequest(for: user))
            let ok = (200..<300).contains(response.status)
            environment.probe.update { counters in
                counters.sends += 1
                if !ok {
                    counters.sendFailures += 1
                    counters.errorCodes["send: HTTP \(response.status)", default: 0] += 1
                }
            }
        } catch {
            environment.probe.update {
                $0.sends += 1
                $0.sendFailures += 1
            }
            record(error, in: current)
        }
    }

    private func token(_ current: Incarnation) async {
        do {
            _ = try await current.client.accessToken()
            environment.probe.update { $0.tokens += 1 }
        } catch { record(error, in: current) }
    }

    /// Signs out, alternating a plain logout and a best-effort revocation; a store that
    /// refuses the removal is asked again, as an app would.
    private func logout(_ current: Incarnation) async {
        let revoke: RevokeMode = state.withLock { state in
            state.logouts += 1
            return state.logouts % 2 == 0 ? .bestEffort : .none
        }
        current.recorder.setLoggingOut(true)
        defer { current.recorder.setLoggingOut(false) }
        for _ in 0..<5 {
            do {
                try await current.client.logout(revoke: revoke)
                environment.probe.update { $0.logouts += 1 }
                return
            } catch {
                record(error, in: current)
            }
        }
    }

    private func record(_ error: any Error, in current: Incarnation) {
        let code = (error as? AuthError)?.code.description ?? "\(type(of: error))"
        environment.probe.update { $0.errorCodes[code, default: 0] += 1 }
        current.recorder.note("error \(error)")
        // SOAK_DEBUG=1: every error a call threw, on stderr (a worker's goes to worker-*.stderr in the run directory).
        if ProcessInfo.processInfo.environment["SOAK_DEBUG"] != nil { FileHandle.standardError.write(Data("\(user.id): \(error)\n".utf8)) }
    }
}
