import Foundation
import LatchkeyCLIBase
import LatchkeyJSON
import LatchkeySecrets

/// What `latchkey secrets bench` prints: one comparison table for people, or one JSON
/// object for scripts.
struct BenchReport {
    let plan: StoreBench.Plan
    /// The backend `--backend auto` picks on this machine, and the selection's reason.
    let automatic: (backend: SecretStoreSelection.Backend, reason: String)?
    let rows: [(StoreBench.Target, StoreBench.Outcome)]
    /// Where the file rows wrote (the temporary directory's parent), and whether that is
    /// the user's data directory's filesystem.
    let files: (parent: String, onDataFilesystem: Bool)

    private func isAutomatic(_ target: StoreBench.Target) -> Bool {
        target.backend != nil && automatic?.backend == target.backend
    }

    // MARK: Table

    /// The table, its footnotes, and a final newline. Text from outside (reasons,
    /// paths) is escaped for the terminal.
    func table() -> String {
        let operations = StoreBench.Operation.allCases
        var header = ["backend", ""]
        for operation in operations { header += ["\(operation.rawValue) median", "p99"] }
        header.append("rounds")
        var body: [[String]] = []
        var notes: [String] = []
        for (target, outcome) in rows {
            let mark = isAutomatic(target) ? "*" : ""
            switch outcome {
            case .measured(let samples):
                var cells = [target.label, mark]
                for operation in operations {
                    let sample = samples[operation]
                    cells += [
                        sample.map { BenchSample.format(nanoseconds: $0.median) } ?? "—",
                        sample.map { BenchSample.format(nanoseconds: $0.p99) } ?? "—",
                    ]
                }
                cells.append(operations.map { samples[$0].map { String($0.count) } ?? "0" }.joined(separator: "/"))
                body.append(cells)
            case .skipped(let reason):
                body.append([target.label, mark, "skipped"])
                notes.append("\(target.label): skipped, \(reason)")
            case .failed(let message):
                body.append([target.label, mark, "FAILED"])
                notes.append("\(target.label): failed, \(message)")
            }
        }
        // Widths from the headers and measured rows; a skipped or failed row's one word
        // after the mark needs no column of its own.
        var widths = [Int](repeating: 0, count: header.count)
        for row in [header] + body where row.count == header.count {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String], numeric: Bool) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let gap = String(repeating: " ", count: max(widths[index] - cell.count, 0))
                let separator = index == 0 ? "" : index == 1 ? " " : "  "
                text += separator + (numeric && index >= 2 ? gap + cell : cell + gap)
            }
            while text.last == " " { text.removeLast() }
            return text
        }
        var out = "value size \(ByteSize.describe(plan.valueBytes)); "
        out +=
            plan.budget == nil
            ? "\(plan.iterations) timed rounds per operation\n"
            : "up to \(plan.iterations) timed rounds per operation, each stopping after \(Self.seconds(plan.budget!)) s\n"
        out +=
            TerminalText.escape(
                files.onDataFilesystem
                    ? "files in a temporary directory in \(files.parent), beside your data directory"
                    : "files in a temporary directory in \(files.parent) (your data directory's parent is missing or not writable, so file rows may not show its disk)"
            ) + "\n\n"
        out += Colour.bold(line(header, numeric: true)) + "\n"
        for row in body { out += TerminalText.escape(line(row, numeric: row.count == header.count)) + "\n" }
        out += "\n"
        if let automatic {
            out += TerminalText.escape("* the automatic choice (--backend auto): \(automatic.backend); why: \(automatic.reason)") + "\n"
        }
        if rows.contains(where: { $0.0.backend == .layered }) {
            out +=
                "cold: a new store and an empty keyring before each call (the first call of a process after a reboot or logout); warm: the same store again\n"
        }
        for note in notes { out += TerminalText.escape(note) + "\n" }
        return out
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = StoreBench.nanoseconds(duration) / 1e9
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: JSON

    /// `{"valueBytes", "iterations", "budgetSeconds", "directory", "onDataFilesystem",
    /// "automatic": {"backend", "reason"},
    /// "results": [{"id", "backend", "label", "automatic", "status", "operations" |
    /// "reason"}]}`; times in nanoseconds.
    func json() -> JSONValue {
        var results: [JSONValue] = []
        for (target, outcome) in rows {
            var object: JSONObject = [
                "id": .string(target.rawValue),
                "backend": .string(target.backendName),
                "label": .string(target.label),
                "automatic": .bool(isAutomatic(target)),
            ]
            switch outcome {
            case .measured(let samples):
                object["status"] = "measured"
                var operations = JSONObject()
                for operation in StoreBench.Operation.allCases {
                    guard let sample = samples[operation] else { continue }
                    operations[operation.rawValue] = .object([
                        "samples": .number(Double(sample.count)),
                        "medianNanoseconds": .number(sample.median.rounded()),
                        "p99Nanoseconds": .number(sample.p99.rounded()),
                        "minNanoseconds": .number(sample.minimum.rounded()),
                        "maxNanoseconds": .number(sample.maximum.rounded()),
                    ])
                }
                object["operations"] = .object(operations)
            case .skipped(let reason):
                object["status"] = "skipped"
                object["reason"] = .string(reason)
            case .failed(let message):
                object["status"] = "failed"
                object["reason"] = .string(message)
            }
            results.append(.object(object))
        }
        var root: JSONObject = [
            "valueBytes": .number(Double(plan.valueBytes)),
            "iterations": .number(Double(plan.iterations)),
            "budgetSeconds": plan.budget.map { .number(StoreBench.nanoseconds($0) / 1e9) } ?? .null,
        ]
        root["directory"] = .string(files.parent)
        root["onDataFilesystem"] = .bool(files.onDataFilesystem)
        root["automatic"] = automatic.map { .object(["backend": .string($0.backend.rawValue), "reason": .string($0.reason)]) } ?? .null
        root["results"] = .array(results)
        return .object(root)
    }
}
