import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets bench`: times get, set and remove on every backend this
    /// machine has, in throwaway namespaces and directories, and prints one comparison.
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Time get, set and remove on every backend available here, and compare them.",
            discussion: """
                Rows: memory, kernel keyring, encrypted file, the layered store (the encrypted file, the \
                keyring holding a passphrase's key) cold and warm, and the desktop's Secret Service (GNOME Keyring, \
                KDE Wallet; skipped, with the reason, where no desktop session has one), and PostgreSQL when \
                --postgres or LATCHKEY_POSTGRES_URL names a database (a postgres:// URL; the row's entries are \
                sealed with the bench's own key and removed afterwards). Cold: a new store and an empty \
                namespace keyring before each call, as a new process finds them after a reboot or logout (the \
                key is read or derived, then the file); warm: the same store again, as on every later call. \
                Keyring rows are skipped, with the reason, where the keyring is not usable (a container's \
                seccomp profile, say); the keyring's own row also when the value is over its 32,767 bytes. \
                The row --backend auto would use is \
                marked *, with the selection's reason.

                Each operation gets one untimed warm-up call, then timed calls: --iterations of them, or by \
                default up to 200, stopping after 0.4 s (at least 5), so a run takes a few seconds. Only the \
                call is timed; its set-up (the entry to remove, the new store) is not. Median and \
                p99 (nearest rank; the slowest call when there are fewer than 100) per operation.

                Your secrets are not touched: the bench writes to a new directory latchkey-bench-XXXXXX \
                beside your data directory (in $XDG_DATA_HOME, so the file rows measure the disk your secrets \
                are on; in $TMPDIR when that is not writable) and to keyring namespaces named \
                latchkey-bench-<pid>-<random>, and removes both when it ends, also after a failure or \
                Ctrl-C (exit 130). A progress bar is drawn on standard error when it \
                is a terminal and NO_COLOR is unset.

                Exit status: 0 every available backend was measured; 1 a store failed (its row says how); \
                64 usage error; 130 interrupted.
                """)

        /// The sizes `--size` accepts: one byte to 4 MiB (the file store rewrites its whole
        /// file on every write, so larger values only make the run long).
        static let sizeRange = 1...(4 * 1_048_576)
        /// The `--iterations` accepted.
        static let iterationRange = 1...100_000
        /// Without `--iterations`: at most this many timed calls per operation…
        static let defaultIterations = 200
        /// …stopping once an operation has taken this long.
        static let defaultBudget = Duration.milliseconds(400)

        @Option(help: ArgumentHelp("The value size, with a unit: B, KB, KiB, MB or MiB (1B to 4MiB).", valueName: "size"))
        var size = "2KB"

        @Option(
            help: ArgumentHelp(
                "Exactly this many timed calls per operation (1 to 100000) instead of the default of up to 200 within 0.4 s.", valueName: "n"))
        var iterations: Int?

        @Option(
            help: ArgumentHelp(
                "A PostgreSQL database to add as a row: postgres://user:password@host:port/db?sslmode=disable|require (default: $LATCHKEY_POSTGRES_URL).",
                valueName: "url"))
        var postgres: String?

        @Flag(help: "Print the results as one JSON object (times in nanoseconds).")
        var json = false

        func validate() throws {
            do {
                _ = try ByteSize.parse(size, in: Self.sizeRange)
            } catch {
                throw ValidationError("--size: \(error)")
            }
            if let iterations, !Self.iterationRange.contains(iterations) {
                throw ValidationError(
                    "--iterations takes a number from \(Self.iterationRange.lowerBound) to \(Self.iterationRange.upperBound), got \(iterations)")
            }
        }

        func run() async throws {
            let valueBytes = try ByteSize.parse(size, in: Self.sizeRange)
            var plan = StoreBench.Plan(
                valueBytes: valueBytes, iterations: iterations ?? Self.defaultIterations,
                budget: iterations == nil ? Self.defaultBudget : nil)
            plan.postgresURL = postgres ?? ProcessInfo.processInfo.environment["LATCHKEY_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
            // What `--backend auto` does for the default namespace; building the selection
            // touches no file (only the keyring probe runs).
            let selection = try? SecretStoreSelection.automatic(namespace: "latchkey")
            let probe = selection?.probe ?? KeyringProbe.run()
            let desktop = selection?.secretServiceProbe ?? SecretServiceProbe.run()

            let workspace: BenchWorkspace
            do {
                workspace = try BenchWorkspace()
            } catch let error as BenchFailure {
                throw fail(error.description)
            }
            let signals = InterruptSignal.install()
            let progress = ProgressLine()
            let bench = StoreBench(plan: plan, workspace: workspace, keyring: probe, secretService: desktop, progress: progress)
            let outcome: Result<[(StoreBench.Target, StoreBench.Outcome)], any Error>
            do {
                outcome = .success(try await bench.run())
            } catch {
                outcome = .failure(error)
            }
            progress.finish()
            let problems = await workspace.cleanUp(keyringAvailable: probe.isAvailable, secretServiceAvailable: desktop.isAvailable)
            signals.restore()
            for problem in problems { printError("warning: could not remove \(problem)") }

            let rows: [(StoreBench.Target, StoreBench.Outcome)]
            switch outcome {
            case .success(let measured):
                rows = measured
            case .failure(let error as InterruptSignal.Interrupted):
                printError("\(error); the bench's temporary keys and files were removed")
                throw ExitCode(error.exitStatus)
            case .failure(let error):
                throw fail("\(error)")
            }
            let report = BenchReport(
                plan: plan, automatic: selection.map { ($0.backend, $0.reason) }, rows: rows,
                files: (workspace.parent, workspace.isOnDataFilesystem))
            if json {
                print(report.json().jsonText)
            } else {
                print(report.table(), terminator: "")
            }
            if rows.contains(where: { if case .failed = $0.1 { true } else { false } }) {
                throw ExitCode(ExitStatus.failure)
            }
        }
    }
}
