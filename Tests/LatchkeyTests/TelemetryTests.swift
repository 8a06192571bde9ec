import Foundation
import InMemoryTracing
import Latchkey
import LatchkeySecrets
import LatchkeyTestSupport
import MetricsTestKit
import Synchronization
import Testing
import Tracing

/// What the core reports to swift-metrics and swift-distributed-tracing, read from the
/// packages' in-memory backends (the ledger's: every suite marked `.noSecretLeaks` also
/// fails when a secret reaches a label or an attribute).
@Suite(.noSecretLeaks) struct TelemetryTests {
    private var ledger: SecretLedger {
        get throws { try #require(SecretLedger.current) }
    }

    @Test func aRenewalIsCountedByReasonAndOutcomeInsideItsSpan() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        try await harness.client.renew()
        harness.provider.script(renew: [.fail(AuthError(.transient, "the provider is down"))])
        await #expect(throws: AuthError.self) { try await harness.client.renew() }

        let metrics = try ledger.metrics
        #expect(try metrics.expectCounter("latchkey_renewals_total", [("reason", "forced"), ("outcome", "renewed")]).totalValue == 1)
        #expect(try metrics.expectCounter("latchkey_renewals_total", [("reason", "forced"), ("outcome", "transient")]).totalValue == 1)
        #expect(try metrics.expectTimer("latchkey_renewal_duration_seconds", [("reason", "forced")]).values.count == 2)

        let spans = try ledger.tracer.finishedSpans.filter { $0.operationName == "latchkey.renewal" }
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { $0.attributes["latchkey.renewal.reason"]?.toSpanAttribute() == "forced" })
        #expect(spans.last?.status?.code == .error)
        #expect(spans.last?.attributes["error.type"]?.toSpanAttribute() == "transient")
        #expect(spans.allSatisfy { $0.errors.isEmpty }, "an error's text is never recorded: only its class")
        await harness.client.shutdown()
    }

    @Test func sessionEndsAreCountedByReason() async throws {
        let harness = try Harness(options: SessionOptions(renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [
            .fail(AuthError.terminated(.globalBan, "User is globally banned", providerCode: "400312", httpStatus: 403))
        ])
        harness.clock.advance(by: .seconds(180))
        await settle("terminated") { harness.client.state == .terminated(.globalBan) }
        try await harness.client.logout()
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        try await harness.client.logout()
        try await harness.client.logout()  // nobody signed in: no session ended

        let metrics = try ledger.metrics
        #expect(try metrics.expectCounter("latchkey_session_ends_total", [("reason", "terminated")]).totalValue == 1)
        #expect(try metrics.expectCounter("latchkey_session_ends_total", [("reason", "logout")]).totalValue == 1)
        await harness.client.shutdown()
    }

    /// Over real HTTP on 127.0.0.1: each answer's class, a failure's class, a client span
    /// whose attributes carry the host and never the path, the query or a header.
    @Test func theInstrumentedTransportMeasuresEachCallByOperationAndClass() async throws {
        let server = try HostileHTTPServer { request in
            switch request.path {
            case let path where path.hasPrefix("/busy"): HostileHTTPServer.json(429, "{}", headers: ["Retry-After: 1"])
            case let path where path.hasPrefix("/down"): HostileHTTPServer.json(503, "{}")
            default: HostileHTTPServer.json(200, "{}")
            }
        }
        defer { server.stop() }
        let transport = InstrumentedTransport(URLSessionTransport())
        let secret = "code-5f0c2e9a"
        try ledger.issued(secret)
        for path in ["ok", "busy", "down"] {
            let request = TransportRequest(
                method: "POST", url: URL(string: "\(server.url.absoluteString)\(path)?code=\(secret)")!,
                headers: ["Authorization": "Bearer \(secret)"], operation: "test \(path)")
            _ = try await transport.send(request)
        }
        let closed = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        let refused = closed.url
        closed.stop()
        await #expect(throws: TransportError.self) { _ = try await transport.send(TransportRequest(url: refused)) }

        let metrics = try ledger.metrics
        #expect(try metrics.expectCounter("latchkey_provider_requests_total", [("operation", "test ok"), ("class", "2xx")]).totalValue == 1)
        #expect(try metrics.expectCounter("latchkey_provider_requests_total", [("operation", "test busy"), ("class", "429")]).totalValue == 1)
        #expect(try metrics.expectCounter("latchkey_provider_requests_total", [("operation", "test down"), ("class", "5xx")]).totalValue == 1)
        #expect(
            try metrics.expectCounter("latchkey_provider_requests_total", [("operation", "other"), ("class", "transport_cannotConnect")])
                .totalValue == 1)
        #expect(
            try metrics.expectTimer("latchkey_provider_request_duration_seconds", [("operation", "test ok"), ("class", "2xx")]).values.count == 1)

        let spans = try ledger.tracer.finishedSpans
        let ok = try #require(spans.first { $0.operationName == "test ok" })
        #expect(ok.kind == .client)
        #expect(ok.attributes["http.request.method"]?.toSpanAttribute() == "POST")
        #expect(ok.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(ok.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(ok.status?.code != .error)
        #expect(spans.first { $0.operationName == "test down" }?.status?.code == .error)
        #expect(spans.first { $0.operationName == "other" }?.attributes["error.type"]?.toSpanAttribute() == "transport_cannotConnect")
        let texts = try ledger.telemetryTexts().map(\.text).joined(separator: "\n")
        #expect(!texts.contains("/ok"), "no path in a label or an attribute")
    }

    /// The registry gives every configured adapter an instrumented transport.
    @Test func theRegistryInstrumentsTheAdaptersTransport() async throws {
        let registry = ProviderRegistry()
        let seen = Captured<any HTTPTransport>()
        registry.register(
            ProviderFactory(identifier: "scripted", schema: ProviderSettingsSchema([])) { context in
                seen.value = context.transport
                return ScriptedProvider(clock: context.clock)
            })
        let configuration = LatchkeyConfiguration(
            provider: "scripted", store: StoreSettings(backend: .memory, namespace: "telemetry-test"),
            session: SessionOptions(heartbeatInterval: nil))
        _ = try registry.makeProvider(configuration, store: MemorySecretStore(namespace: "telemetry-test"))
        #expect(seen.value is InstrumentedTransport)
        // An app's own instrumented transport is not measured twice.
        _ = try registry.makeProvider(
            configuration, store: MemorySecretStore(namespace: "telemetry-test"),
            transport: InstrumentedTransport(URLSessionTransport()))
        #expect((seen.value as? InstrumentedTransport)?.base is URLSessionTransport)
    }
}

/// A value a factory closure hands out of its call.
private final class Captured<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)
    var value: Value? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
