internal import CoreMetrics
internal import Foundation
internal import Tracing

/// What Latchkey reports to swift-metrics and swift-distributed-tracing: the one home of
/// every metric name, label and span name (Docs/telemetry.md lists them for operators).
///
/// Reports go to the task's factory and tracer (`withMetricsFactory`, `withTracer`) or the
/// globally bootstrapped ones; with neither, to the packages' no-op backends. Every label
/// and attribute value comes from a closed set the code names (a reason, an outcome, an
/// error class, an operation its sender fixed): never a token, a code, a key, a user ID or
/// a URL's query.
package enum Telemetry {
    enum Name {
        static let renewals = "latchkey_renewals_total"
        static let renewalDuration = "latchkey_renewal_duration_seconds"
        static let sessionEnds = "latchkey_session_ends_total"
        static let providerRequests = "latchkey_provider_requests_total"
        static let providerRequestDuration = "latchkey_provider_request_duration_seconds"
        static let verifications = "latchkey_verifications_total"
        static let renewalSpan = "latchkey.renewal"
    }

    /// A renewal ended: `outcome` is `renewed` or the class of its failure.
    static func renewal(reason: RenewalRequest.Reason, outcome: String, elapsed: Duration) {
        let reason = reason.description
        Counter(label: Name.renewals, dimensions: [("reason", reason), ("outcome", outcome)]).increment()
        Timer(label: Name.renewalDuration, dimensions: [("reason", reason)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(elapsed.saturatingNanoseconds)
    }

    /// A bearer token a server received was verified (`verified`) or refused (the
    /// refusal's code: `invalidToken`, `insufficientScope`, `missingToken`…).
    package static func verification(outcome: String) {
        Counter(label: Name.verifications, dimensions: [("outcome", outcome)]).increment()
    }

    /// A signed-in session ended: `reason` is `logout`, `terminated` or the code that ended it.
    static func sessionEnded(reason: String) {
        Counter(label: Name.sessionEnds, dimensions: [("reason", reason)]).increment()
    }

    /// A provider call answered (`class` is its status class) or failed (`class` names why).
    static func providerRequest(operation: String, class outcome: String, elapsed: Duration) {
        let dimensions = [("operation", operation), ("class", outcome)]
        Counter(label: Name.providerRequests, dimensions: dimensions).increment()
        Timer(label: Name.providerRequestDuration, dimensions: dimensions, preferredDisplayUnit: .seconds)
            .recordNanoseconds(elapsed.saturatingNanoseconds)
    }

    /// `2xx`, `3xx`, `4xx`, `429`, `5xx`: a status's class (429 apart: it is what an
    /// operator watches for).
    static func statusClass(_ status: Int) -> String {
        if status == 429 { return "429" }
        guard (100...599).contains(status) else { return "invalid" }
        return "\(status / 100)xx"
    }

    /// The class of a failure, for a label: an ``AuthError``'s code, `transport_<code>` for a
    /// ``TransportError``, `cancelled`, or `other`. Never the error's message.
    static func errorClass(_ error: any Error) -> String {
        switch error {
        case let error as AuthError: error.code.description
        case let error as TransportError: "transport_\(error.code)"
        case is CancellationError: "cancelled"
        default: "other"
        }
    }

    /// Runs `body` in a span named `name`; a failure marks the span with its class only
    /// (`error.type`), not the error's text, which `withSpan` would record.
    static func traced<T: Sendable>(
        _ name: String, kind: SpanKind, isolation: isolated (any Actor)? = #isolation,
        _ body: (any Span) async throws -> T
    ) async throws -> T {
        let result: Result<T, any Error> = await withSpan(name, ofKind: kind, isolation: isolation) { span in
            do {
                return .success(try await body(span))
            } catch {
                span.attributes["error.type"] = errorClass(error)
                span.setStatus(SpanStatus(code: .error))
                return .failure(error)
            }
        }
        return try result.get()
    }
}
