import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import Synchronization
import Testing
import Tracing

@testable import Latchkey

/// The secrets one test handed out, and every text that must never show them.
///
/// Each test of a suite marked ``Trait/noSecretLeaks`` runs with its own ledger (a
/// task-local value). While it runs:
/// - every ``ScriptedProvider`` records its random secret, which every token it issues
///   embeds (`access-<n>-<secret>`, `refresh-<n>-<secret>`), and every password of 8
///   bytes or more it is given;
/// - every ``Harness`` (and each client it restarts) records its ``LogCapture`` and
///   its ``AuthClient``;
/// - ``authError(_:)`` records the description of each error it catches, and the
///   scope records the error a test throws.
///
/// When the test ends, the ledger fails it for any recorded secret — or any JWT-shaped
/// string — in a captured log line, a caught or thrown error (`description`,
/// `String(reflecting:)`, `localizedDescription`, `dump`), or the description of a
/// client's state, session, user, restore error or end error — or in a metric's label or
/// dimensions, a span's name, attributes, events or recorded errors: the test runs with the
/// ledger's ``metrics`` and ``tracer`` as its task's metrics factory and tracer.
final class SecretLedger: Sendable {
    /// The ledger of the test running in this task, if its suite checks for leaks.
    @TaskLocal static var current: SecretLedger?

    private struct State {
        var secrets: Set<String> = []
        var logs: [LogCapture] = []
        var clients: [AuthClient] = []
        var texts: [(what: String, text: String)] = []
    }

    private let state = Mutex(State())
    /// What the test's code reported to swift-metrics.
    let metrics = TestMetrics()
    /// What the test's code reported to swift-distributed-tracing.
    let tracer = InMemoryTracer()

    /// Records a secret that must not appear anywhere checked.
    func issued(_ secret: String) {
        guard !secret.isEmpty else { return }
        state.withLock { _ = $0.secrets.insert(secret) }
    }

    /// The secrets recorded so far.
    var secrets: Set<String> { state.withLock { $0.secrets } }

    /// Checks `logs`' lines when the test ends.
    func watch(_ logs: LogCapture) {
        state.withLock { state in
            if !state.logs.contains(where: { $0 === logs }) { state.logs.append(logs) }
        }
    }

    /// Checks `client`'s descriptions when the test ends.
    func watch(_ client: AuthClient) {
        state.withLock { $0.clients.append(client) }
    }

    /// Checks `text` when the test ends.
    func inspect(_ what: String, _ text: String) {
        state.withLock { $0.texts.append((what, text)) }
    }

    /// Checks every way `error` can be shown when the test ends.
    func inspect(error: any Error, _ what: String) {
        var dumped = ""
        dump(error, to: &dumped)
        for (form, text) in [
            ("description", "\(error)"), ("debug description", String(reflecting: error)),
            ("localizedDescription", error.localizedDescription), ("dump", dumped),
        ] {
            inspect("\(what) (\(form))", text)
        }
    }

    /// The texts the ledger checks now: recorded texts, log lines, client descriptions.
    func gatherTexts() async -> [(what: String, text: String)] {
        let (texts, logs, clients) = state.withLock { ($0.texts, $0.logs, $0.clients) }
        var all = texts
        for capture in logs {
            all += capture.all.map { ("log line", $0) }
        }
        for client in clients {
            let state = client.state
            var dumped = ""
            dump(state, to: &dumped)
            all += [("client state", "\(state)"), ("client state (debug)", String(reflecting: state)), ("client state (dump)", dumped)]
            if let session = client.currentSession { all.append(("current session", String(reflecting: session))) }
            if let user = client.currentUser { all.append(("current user", String(reflecting: user))) }
            if let error = await client.restoreError { all.append(("restore error", String(reflecting: error))) }
            if let error = await client.endError { all.append(("end error", String(reflecting: error))) }
        }
        all += telemetryTexts()
        return all
    }

    /// Every metric's label and dimensions, every finished span's name, attributes, events
    /// and errors, each as one text.
    func telemetryTexts() -> [(what: String, text: String)] {
        var all: [(what: String, text: String)] = []
        for counter in metrics.counters { all.append(("counter", "\(counter.label) \(counter.dimensions)")) }
        for timer in metrics.timers { all.append(("timer", "\(timer.label) \(timer.dimensions)")) }
        for span in tracer.finishedSpans {
            var text = span.operationName
            span.attributes.forEach { key, value in text += " \(key)=\(value)" }
            for event in span.events {
                text += " event \(event.name)"
                event.attributes.forEach { key, value in text += " \(key)=\(value)" }
            }
            for recorded in span.errors { text += " error \(String(reflecting: recorded.error))" }
            all.append(("span", text))
        }
        return all
    }

    /// The leaks in `texts`: each text that shows a recorded secret or a JWT.
    func leaks(in texts: [(what: String, text: String)]) -> [String] {
        let secrets = self.secrets
        var found: [String] = []
        for (what, text) in texts {
            if let secret = secrets.first(where: { text.contains($0) }) {
                found.append("\(what) shows the secret \"\(secret)\": \(text)")
            } else if text.contains(Self.jwtShape) {
                found.append("\(what) shows a JWT: \(text)")
            }
        }
        return found
    }

    /// Three base64url segments whose first two start like JSON objects (`{"` → `eyJ`).
    static var jwtShape: Regex<Substring> { /eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/ }
}

/// Fails each test of the suite (or the test) it marks when a secret the test's
/// scripted provider issued reaches a log line, an error or a description; see
/// ``SecretLedger``.
struct NoSecretLeaks: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let ledger = SecretLedger()
        var thrown: (any Error)?
        do {
            try await withMetricsFactory(ledger.metrics) {
                try await withTracer(ledger.tracer) {
                    try await SecretLedger.$current.withValue(ledger) { try await function() }
                }
            }
        } catch {
            ledger.inspect(error: error, "the error the test threw")
            thrown = error
        }
        let texts = await ledger.gatherTexts()
        for leak in ledger.leaks(in: texts) {
            Issue.record("secret leak: \(leak)")
        }
        // Every client of the suite publishes its transition function's state: each
        // disagreement it logged is a move of the client the machine does not model.
        for (what, text) in texts where what == "log line" && text.contains(AuthClient.coreDisagrees) {
            Issue.record("\(text)")
        }
        if let thrown { throw thrown }
    }
}

extension Trait where Self == NoSecretLeaks {
    /// Fails a test when a secret its scripted provider issued reaches a log line, an
    /// error or a description (see ``SecretLedger``).
    static var noSecretLeaks: Self { NoSecretLeaks() }
}
