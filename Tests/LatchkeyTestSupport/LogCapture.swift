public import Logging
import Synchronization

/// Collects every log line (level, message and metadata) in memory, so a test can look
/// for what was logged — and for what must never be (a secret).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at `.trace` that writes here.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far, in order.
    public var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            capture.append(
                "\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }
}
