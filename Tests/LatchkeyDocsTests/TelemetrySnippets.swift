// swift-format-ignore-file
// (Documentation snippets: each block is compared line by line with its page, so the
// formatter leaves this file as written.)
// Docs/telemetry.md's Swift blocks, as written there (DocumentSnippetTests checks).
import CoreMetrics
import Latchkey
import LatchkeyAuth0
import Tracing

func telemetryBootstrap(prometheus: any MetricsFactory, otelTracer: any Tracer) {
    MetricsSystem.bootstrap(prometheus)          // or any MetricsFactory
    InstrumentationSystem.bootstrap(otelTracer)  // or any Tracer
}

func telemetryInstrumentedAdapter(configuration: Auth0Configuration) -> Auth0Provider {
    let provider = Auth0Provider(configuration: configuration,
                                 transport: InstrumentedTransport(RetryingTransport(URLSessionTransport())))
    return provider
}
