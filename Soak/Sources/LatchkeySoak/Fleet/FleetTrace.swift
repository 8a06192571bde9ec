internal import Foundation
internal import Logging

/// An instance's trace (`latchkey-soak --fleet --trace`): its host's, its clients' and its
/// PostgreSQL store's messages, and each save and lock of its stores with the user's
/// namespace, one line each to `instance-N.trace` with the wall-clock time the judge's
/// notes use. For following one user's rotated token through a run; nothing secret is
/// written (the library's messages carry none, and the store lines name no value).
struct FleetTraceHandler: LogHandler {
    let path: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    init(path: String) { self.path = path }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // postgres-nio's own debug messages (every query) would drown the library's.
        if event.source == "PostgresNIO", event.level < .info { return }
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FleetTrace.write("\(event.level) \(event.source): \(event.message) \(fields)", to: path)
    }
}

enum FleetTrace {
    /// One line, with the time, in one `write` (a SIGKILL leaves whole lines).
    static func write(_ line: String, to path: String) {
        RefreshLedger.appendText(String(format: "%.3f ", Date().timeIntervalSince1970) + line + "\n", to: path)
    }

    /// The logger of an instance that traces, else one that drops everything.
    static func logger(_ label: String, path: String?) -> Logger {
        guard let path else { return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
        return Logger(label: label, factory: { _ in FleetTraceHandler(path: path) })
    }
}
