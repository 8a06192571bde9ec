import CoreMetrics
import Foundation
import LatchkeyHummingbird
import MetricsTestKit
import Testing

/// The middleware counts each verification by outcome (`latchkey_verifications_total`):
/// the server runs inside the test's task, so its handlers report to the test's factory.
@Suite struct VerificationMetricsTests {
    @Test func eachVerificationIsCountedByOutcomeAndNoLabelHoldsTheToken() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await Harness.with { harness in
                let token = try await harness.tokens.auth0AccessToken(scope: "openid read:messages")
                try await harness.serve(try harness.auth0Verifier(), scopes: ["read:messages"]) { (url: URL) async throws in
                    #expect(try await harness.client.get(url, bearer: token).status == 200)
                    #expect(try await harness.client.get(url, bearer: token).status == 200)
                    #expect(try await harness.client.send(url, headers: [:]).status == 401)
                    #expect(try await harness.client.get(url, bearer: token + "x").status == 401)
                }
                try await harness.serve(try harness.auth0Verifier(), scopes: ["admin"]) { (url: URL) async throws in
                    #expect(try await harness.client.get(url, bearer: token).status == 403)
                }
                let label = "latchkey_verifications_total"
                #expect(try metrics.expectCounter(label, [("outcome", "verified")]).totalValue == 2)
                #expect(try metrics.expectCounter(label, [("outcome", "missingToken")]).totalValue == 1)
                #expect(try metrics.expectCounter(label, [("outcome", "invalidToken")]).totalValue == 1)
                #expect(try metrics.expectCounter(label, [("outcome", "insufficientScope")]).totalValue == 1)
                let labels = metrics.counters.map { "\($0.label) \($0.dimensions)" }.joined(separator: "\n")
                #expect(!labels.contains(token))
            }
        }
    }
}
