internal import Foundation
internal import Latchkey
internal import Logging
internal import Synchronization

/// Everything one client (one `AuthClient` of one user in one process) says: the state
/// changes it logs, the states its stream delivers, the provider errors it logs before
/// ending a session, and every log line (for the secret scan).
///
/// The logged changes are the truth: `move(to:)` logs each one synchronously. The stream
/// must deliver exactly the same sequence — no state change missing.
final class ClientRecorder: Sendable {
    private struct State {
        var logged: [String] = []
        var streamed: [String] = []
        var transitions: [ObservedTransition] = []
        var lines: [String] = []
        var lastError: String?
        var loggingOut = false
        var loggingIn = false
        var priorState: String?
    }

    let user: String
    private let clock: any SessionClock
    private let state = Mutex(State())
    /// Where each line goes the moment it is logged (`--keep-logs`): a worker killed in
    /// the middle of a step still leaves what it did up to the kill.
    private let logPath: String?
    /// Which of the user's clients this is, in its process (`c3 p1234`): an in-process
    /// restart's old and new clients write to the same kept log.
    private let tag: String

    init(user: String, clock: any SessionClock, priorState: String?, logPath: String? = nil, client: Int = 0) {
        self.user = user
        self.clock = clock
        self.logPath = logPath
        tag = "c\(client) p\(getpid())"
        state.withLock { $0.priorState = priorState }
    }

    private func keep(_ line: String) {
        if let logPath { RefreshLedger.appendText(line + " [\(tag)]\n", to: logPath) }
    }

    /// A logger that records into this recorder.
    func logger() -> Logger {
        let recorder = self
        var logger = Logger(label: "latchkey.soak.\(user)") { _ in RecordingLogHandler(recorder: recorder) }
        logger.logLevel = .debug
        return logger
    }

    var isLoggingIn: Bool { state.withLock { $0.loggingIn } }

    func setLoggingIn(_ value: Bool) { state.withLock { $0.loggingIn = value } }
    func setLoggingOut(_ value: Bool) { state.withLock { $0.loggingOut = value } }

    /// A line the harness itself would log (an error a call threw), scanned like the rest.
    func note(_ line: String) {
        state.withLock { $0.lines.append(line) }
        keep(line)
    }

    func record(_ event: LogEvent, metadata: Logger.Metadata) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let message = event.message.description
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let now = clock.now.timeIntervalSince1970
        let line = "\(Int(now)) \(event.level) \(message) \(rendered)"
        keep(line)
        state.withLock { state in
            state.lines.append(line)
            if let error = merged["error"] { state.lastError = "\(message): \(error)" }
            guard message == "session state changed", let to = merged["to"].map({ "\($0)" }) else { return }
            let from = merged["from"].map { "\($0)" } ?? "start"
            state.logged.append(to)
            state.transitions.append(
                ObservedTransition(
                    user: user, from: from, to: to, cause: state.loggingOut ? "logout" : state.lastError,
                    priorState: from == "start" || from == "restoring" ? state.priorState : nil, simulatedTime: now))
        }
    }

    func streamed(_ value: SessionState) { state.withLock { $0.streamed.append(value.description) } }

    /// The transitions and lines since the last drain.
    func drain() -> (transitions: [ObservedTransition], lines: [String]) {
        state.withLock { state in
            defer {
                state.transitions = []
                state.lines = []
            }
            return (state.transitions, state.lines)
        }
    }

    /// What the stream missed or invented, once the stream has finished; `nil` when it
    /// delivered exactly the logged sequence.
    func streamMismatch() -> String? {
        state.withLock { state in
            guard state.logged != state.streamed else { return nil }
            return "logged \(state.logged.joined(separator: " → ")); streamed \(state.streamed.joined(separator: " → "))"
        }
    }
}

/// Hands every log event of one client to its ``ClientRecorder``.
struct RecordingLogHandler: LogHandler {
    let recorder: ClientRecorder
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.record(event, metadata: metadata)
    }
}
