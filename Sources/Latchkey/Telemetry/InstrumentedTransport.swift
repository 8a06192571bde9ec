internal import CoreMetrics
internal import Foundation
internal import Tracing

/// A transport that reports each request to swift-metrics and swift-distributed-tracing,
/// then sends it through `base`.
///
/// Per request: a client span named by the request's ``TransportRequest/operation`` (attributes
/// `http.request.method`, `server.address`, `latchkey.operation`,
/// `http.response.status_code`, or `error.type` when nothing came back), the counter
/// `latchkey_provider_requests_total` and the timer
/// `latchkey_provider_request_duration_seconds`, both labelled `operation` and `class`
/// (`2xx`, `4xx`, `429`, `5xx`…, or the failure's class, e.g. `transport_timedOut`).
/// No header, body, path or query goes into a label or an attribute: the host only.
///
/// ``ProviderRegistry`` wraps every adapter's transport in one; an adapter made in code
/// (`Auth0Provider(configuration:transport:)`) is instrumented by passing one. Wrapping a
/// ``RetryingTransport`` measures each call with its retries; wrapped by one, each attempt.
public struct InstrumentedTransport: HTTPTransport {
    /// Where the requests go.
    public let base: any HTTPTransport

    /// Wraps `base`.
    public init(_ base: any HTTPTransport) {
        self.base = base
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let operation = request.operation ?? "other"
        let start = ContinuousClock.now
        do {
            let response = try await Telemetry.traced(operation, kind: .client) { span in
                span.attributes["latchkey.operation"] = operation
                span.attributes["http.request.method"] = request.method
                if let host = request.url.host { span.attributes["server.address"] = host }
                let response = try await base.send(request)
                span.attributes["http.response.status_code"] = response.status
                if response.status >= 500 || response.status == 429 { span.setStatus(SpanStatus(code: .error)) }
                return response
            }
            Telemetry.providerRequest(operation: operation, class: Telemetry.statusClass(response.status), elapsed: ContinuousClock.now - start)
            return response
        } catch {
            Telemetry.providerRequest(operation: operation, class: Telemetry.errorClass(error), elapsed: ContinuousClock.now - start)
            throw error
        }
    }
}
