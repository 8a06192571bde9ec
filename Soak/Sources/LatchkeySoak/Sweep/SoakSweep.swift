internal import Foundation
internal import Glibc
internal import Synchronization

/// `latchkey-soak --sweep FIRST-LAST`: the same soak over a range of seeds, each seed a
/// child process of this executable (`--seed N --json`, every other option passed on),
/// `jobs` at a time; then one table over all seeds and the failing seeds with their
/// first findings. A seed fails when an invariant is not zero, a harness step failed, or
/// the child left no report (a crash, a trap, or a run stopped after ``seedLimit``).
struct SoakSweep {
    let seeds: ClosedRange<UInt64>
    let jobs: Int
    /// Options for every child, without `--seed`, `--json` or `--directory`.
    let arguments: [String]
    /// Where each seed's run directory goes (`<directory>/seed-N`, kept), when given.
    let directory: String?
    /// How long a seed may run: a hung one (soak seed 74 once waited 45 minutes in a
    /// client's shutdown) would hold its slot, and the sweep, forever. It is stopped with
    /// its processes' stacks kept, and fails.
    var seedLimit = Duration.seconds(20 * 60)
    var progress: (@Sendable (String) -> Void)?

    /// One seed's outcome.
    struct Outcome: Sendable {
        var seed: UInt64
        var report: SoakReport?
        var status: Int32
        /// The end of the child's error output when it left no report.
        var errorTail: String
        var seconds: Double

        var failed: Bool {
            guard let report else { return true }
            return status != 0 || report.violations > 0 || report.drivers.contains { $0.harnessFailures > 0 }
        }
    }

    /// Parses `FIRST-LAST` or a single seed.
    static func seeds(_ text: String) -> ClosedRange<UInt64>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first.flatMap({ UInt64($0) }) else { return nil }
        guard parts.count == 2 else { return parts.count == 1 ? first...first : nil }
        guard let last = UInt64(parts[1]), last >= first else { return nil }
        return first...last
    }

    /// Removes the options the sweep sets itself from a command line (`--opt value` and `--opt=value`).
    static func childArguments(_ arguments: [String]) -> [String] {
        let valued: Set<String> = ["--sweep", "--jobs", "--seed", "--directory"]
        var result: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if valued.contains(argument) {
                skipNext = true
                continue
            }
            if valued.contains(name) || argument == "--json" { continue }
            result.append(argument)
        }
        return result
    }

    func run(executable: String) async -> [Outcome] {
        let scratch = NSTemporaryDirectory() + "/latchkey-soak-sweep-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var pending = Array(seeds).makeIterator()
        var outcomes: [Outcome] = []
        await withTaskGroup(of: Outcome.self) { group in
            for _ in 0..<max(1, jobs) {
                guard let seed = pending.next() else { break }
                group.addTask { await runSeed(seed, executable: executable, scratch: scratch) }
            }
            for await outcome in group {
                outcomes.append(outcome)
                progress?("seed \(outcome.seed): \(outcome.failed ? "FAILED" : "ok") (\(Int(outcome.seconds)) s; \(outcomes.count)/\(seeds.count))")
                // The findings at once: a sweep stopped before its table keeps them.
                if outcome.failed { progress?(Self.findings(outcome).joined(separator: "\n")) }
                if let seed = pending.next() { group.addTask { await runSeed(seed, executable: executable, scratch: scratch) } }
            }
        }
        return outcomes.sorted { $0.seed < $1.seed }
    }

    private func runSeed(_ seed: UInt64, executable: String, scratch: String) async -> Outcome {
        let began = ContinuousClock.now
        let out = scratch + "/seed-\(seed).out", err = scratch + "/seed-\(seed).err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        var arguments = arguments + ["--seed", String(seed), "--json"]
        if let directory { arguments += ["--directory", directory + "/seed-\(seed)"] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        let started = StartedProcess()
        let limit = seedLimit
        // Kept past the sweep (its scratch directory is removed at the end).
        let stacks = (directory.map { $0 + "/seed-\(seed)" } ?? NSTemporaryDirectory()) + "/latchkey-soak-seed-\(seed)-hung.stacks"
        let watchdog = Task { () -> String? in
            do { try await Task.sleep(for: limit) } catch { return nil }
            guard let pid = started.pid.withLock({ $0 }) else { return nil }
            StackDump.save(pids: [pid] + Self.children(of: pid), to: stacks)
            Self.kill(pid)
            return stacks
        }
        let status: Int32 = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
                started.pid.withLock { $0 = process.processIdentifier }
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: -1)
            }
        }
        watchdog.cancel()
        let hung = await watchdog.value
        let elapsed = began.duration(to: .now).components
        let text = FileManager.default.contents(atPath: out).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let report = text.split(separator: "\n").last { $0.hasPrefix("{") }
            .flatMap { try? JSONDecoder().decode(SoakReport.self, from: Data($0.utf8)) }
        var tail = ""
        if report == nil, let data = FileManager.default.contents(atPath: err) {
            tail = String(String(decoding: data, as: UTF8.self).suffix(600))
        }
        if let hung { tail = "stopped after \(limit) without a report (hung; its processes' stacks in \(hung))\n" + tail }
        return Outcome(
            seed: seed, report: report, status: status, errorTail: tail,
            seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }

    /// SIGKILLs a hung seed's workers, then the seed's process.
    private static func kill(_ pid: Int32) {
        for child in children(of: pid) { _ = Glibc.kill(child, SIGKILL) }
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// The processes whose parent is `pid` (from `/proc/PID/stat`).
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let child = Int32(entry), let stat = FileManager.default.contents(atPath: "/proc/\(entry)/stat") else { return nil }
            // "PID (COMMAND) STATE PPID …": the command may hold spaces and parentheses.
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }

    /// One table over every seed (per driver: seeds run and failed, each invariant's
    /// violations summed, the explained losses), then each failing seed's first findings.
    static func summary(_ outcomes: [Outcome], wallSeconds: Double) -> String {
        let reports = outcomes.compactMap(\.report)
        var names: [String] = []
        for report in reports { for driver in report.drivers where !names.contains(driver.driver) { names.append(driver.driver) } }
        func summed(_ value: (DriverSummary) -> Int) -> [String] {
            names.map { name in String(reports.reduce(0) { $0 + ($1.drivers.first { $0.driver == name }.map(value) ?? 0) }) }
        }
        var rows: [(String, [String])] = []
        rows.append(("seeds run", names.map { name in String(reports.filter { $0.drivers.contains { $0.driver == name } }.count) }))
        rows.append(
            (
                "seeds failing",
                names.map { name in
                    String(reports.filter { $0.drivers.contains { $0.driver == name && ($0.invariants.total > 0 || $0.harnessFailures > 0) } }.count)
                }
            ))
        rows.append(("worker kills", summed(\.kills)))
        rows.append(("sessions ended by an event", summed(\.legitimateEnds)))
        rows.append(("rotations lost: to a kill", summed(\.rotationsLostToKills)))
        rows.append(("rotations lost: in transit", summed(\.rotationsLostInTransit)))
        rows.append(("sessions ended by a lost rotation", summed(\.endsByLostRotation)))
        rows.append(("harness failures", summed(\.harnessFailures)))
        rows.append(("INVARIANT wrongful logouts", summed(\.invariants.wrongfulLogouts)))
        rows.append(("INVARIANT sessions lost at restart", summed(\.invariants.sessionsLostAtRestart)))
        rows.append(("INVARIANT overlapping renewals", summed(\.invariants.renewalOverlaps)))
        rows.append(("INVARIANT stream ≠ state changes", summed(\.invariants.streamMismatches)))
        rows.append(("INVARIANT undecodable stores", summed(\.invariants.undecodableStores)))
        rows.append(("INVARIANT secrets in logs", summed(\.invariants.secretsInLogs)))
        rows.append(("INVARIANT refresh tokens lost", summed(\.invariants.refreshTokensLost)))
        rows.append(("INVARIANT off-diagram transitions", summed(\.invariants.transitionsOffTheDiagram)))
        rows.append(("INVARIANT machine ≠ client", summed(\.invariants.machineDisagreements)))
        let width = rows.map(\.0.count).max() ?? 10
        let columns = names.indices.map { index in max(names[index].count, rows.map { $0.1[index].count }.max() ?? 0) }
        func line(_ name: String, _ values: [String]) -> String {
            name.padding(toLength: width, withPad: " ", startingAt: 0)
                + zip(values, columns).map { " | " + $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined()
        }
        let header = line("", names)
        var lines = [header, String(repeating: "-", count: header.count)] + rows.map { line($0.0, $0.1) }
        let failing = outcomes.filter(\.failed)
        let first = outcomes.first?.seed ?? 0, last = outcomes.last?.seed ?? 0
        let wall = outcomes.map(\.seconds).reduce(0, +)
        lines.append(
            "seeds \(first)–\(last): \(outcomes.count) run, \(failing.count) failing; wall time \(String(format: "%.0f", wallSeconds)) s "
                + "(\(String(format: "%.0f", wall)) s of runs)")
        for outcome in failing { lines += [""] + findings(outcome) }
        return lines.joined(separator: "\n")
    }

    /// A failing seed's first findings: each driver's non-zero figures with up to three
    /// samples, or the end of the child's error output when it left no report.
    static func findings(_ outcome: Outcome) -> [String] {
        guard let report = outcome.report else {
            var lines = ["seed \(outcome.seed): no report (exit status \(outcome.status))"]
            if !outcome.errorTail.isEmpty { lines.append("  " + outcome.errorTail.split(separator: "\n").suffix(5).joined(separator: "\n  ")) }
            return lines
        }
        var lines = ["seed \(outcome.seed): \(report.violations) violation(s), exit status \(outcome.status)"]
        for driver in report.drivers where driver.invariants.total > 0 || driver.harnessFailures > 0 {
            lines.append("  \(driver.driver): " + Self.nonZero(driver.invariants, harness: driver.harnessFailures))
            for sample in driver.samples.prefix(3) { lines.append("    - \(sample)") }
        }
        return lines
    }

    private static func nonZero(_ figures: InvariantFigures, harness: Int) -> String {
        let all = [
            ("wrongfulLogouts", figures.wrongfulLogouts), ("sessionsLostAtRestart", figures.sessionsLostAtRestart),
            ("renewalOverlaps", figures.renewalOverlaps), ("streamMismatches", figures.streamMismatches),
            ("undecodableStores", figures.undecodableStores), ("secretsInLogs", figures.secretsInLogs),
            ("refreshTokensLost", figures.refreshTokensLost), ("transitionsOffTheDiagram", figures.transitionsOffTheDiagram),
            ("machineDisagreements", figures.machineDisagreements),
            ("harnessFailures", harness),
        ]
        return all.filter { $0.1 > 0 }.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}

/// The process identifier of a seed's child once it runs, for its watchdog.
private final class StartedProcess: Sendable {
    let pid = Mutex<Int32?>(nil)
}
