internal import Foundation
internal import Latchkey

/// The users one process carries — the parent's in-process users or a worker's — and
/// how a step runs for them: move the simulated clock, start each user's intent, wait
/// until every client has gone quiet (nothing on the wire or in the store; what is left
/// sleeps on the simulated clock), then report states, transitions, figures and
/// violations.
actor UserHost {
    let environment: HostEnvironment
    private let users: [HostedUser]
    private let gate: Gate

    init(environment: HostEnvironment, users: [SoakUser]) {
        self.environment = environment
        self.users = users.map { HostedUser(user: $0, environment: environment) }
        gate = Gate(permits: environment.settings.concurrency)
    }

    /// Starts a client for every user on its store (a process start).
    func startAll(step: Int) async -> HostReport {
        for user in users where user.claim() { launch(user) { await user.restart(counted: false) } }
        await settle()
        return report(step: step)
    }

    /// One step: the clock moves to `command.now`, the intents start.
    func run(_ command: HostCommand) async -> HostReport {
        environment.clock.advance(to: Date(timeIntervalSince1970: command.now + environment.settings.skewSeconds))
        for user in users {
            guard let intent = command.intents[user.user.id], intent != .idle, user.claim() else { continue }
            launch(user) { await user.act(intent) }
        }
        await settle()
        return report(step: command.step)
    }

    /// Shuts every client down and checks each stream against its log.
    ///
    /// The steps no longer move the clients' clock, so it moves on its own while they shut
    /// down, as an app's does. A shutdown waits for a renewal on the wire; a request of that
    /// renewal that timed out (real time, on a loaded machine) waits for its retry on this
    /// clock, which, frozen, never comes. That is the likeliest reading of soak seed 110's
    /// hang in the sweep of `eec49f7` (the client received its rotated refresh token and
    /// never saved it; every thread idle, nothing on the wire, the JWKS fetched in the same
    /// step). Ticks start after the shutdowns have stopped every client's timers.
    func finish(step: Int) async -> HostReport {
        let clock = environment.clock
        let ticker = Task {
            try await Task.sleep(for: .seconds(2))
            while true {
                clock.advance(by: .seconds(1))
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for user in users { group.addTask { await user.finish() } }
        }
        ticker.cancel()
        environment.session.invalidateAndCancel()
        return report(step: step)
    }

    private func launch(_ user: HostedUser, _ body: @escaping @Sendable () async -> Void) {
        let (gate, probe) = (self.gate, environment.probe)
        probe.actionStarted()
        Task {
            await gate.acquire()
            await body()
            await gate.release()
            user.release()
            probe.actionEnded()
        }
    }

    /// Waits until the wire and the stores have been idle for a few polls: longer while
    /// actions are still running (they may be between two calls), shorter once all are done.
    private func settle() async {
        let probe = environment.probe
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        var quiet = 0
        var last = probe.activity.stamp
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(3))
            let (inFlight, stamp) = probe.activity
            quiet = inFlight == 0 && stamp == last ? quiet + 1 : 0
            last = stamp
            let actionsLeft = probe.actionsRunning
            if quiet >= (actionsLeft == 0 ? 2 : 6) { return }
        }
    }

    private func report(step: Int) -> HostReport {
        var states: [String: String] = [:]
        var transitions: [ObservedTransition] = []
        var lines: [String] = []
        for user in users {
            states[user.user.id] = user.sessionState?.description ?? "none"
            let drained = user.drain()
            transitions += drained.transitions
            lines += drained.lines.map { "\(user.user.id)\t\($0)" }
        }
        let ledger = environment.ledger
        for line in lines {
            let user = String(line.prefix { $0 != "\t" })
            if ledger.leaks(in: line) { environment.probe.violation(.secretInLog, user: user, Self.redacted(line)) }
            // The client refuses a move its state machine lacks, and says so: never expected.
            if line.contains(Self.offTheDiagram) { environment.probe.violation(.offTheDiagram, user: user, Self.redacted(line)) }
            // The client's transition function modelled a move of the actor wrongly.
            if line.contains(Self.machineDisagrees) { environment.probe.violation(.machineDisagrees, user: user, Self.redacted(line)) }
        }
        environment.probe.update { $0.logLines += lines.count }
        let (counters, violations) = environment.probe.drain()
        return HostReport(step: step, states: states, transitions: transitions, violations: violations, counters: counters)
    }

    /// What a client logs when it refuses a transition the documented diagram lacks.
    static let offTheDiagram = "illegal session state transition refused"
    /// What a client logs when its state machine disagrees with the actor.
    static let machineDisagrees = "state machine disagrees"

    /// The line with every long token-like run replaced, so the report never repeats the leak.
    static func redacted(_ line: String) -> String {
        var result = ""
        var run = ""
        func flush() {
            result += run.count >= 12 ? "‹\(run.count) chars›" : run
            run = ""
        }
        for character in line {
            if SecretLedger.isTokenCharacter(character) {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return String(result.prefix(300))
    }
}
