import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch
import Testing

/// The session JWT's key set comes through the core's one JWKS fetcher, and a refused
/// fetch is classified as every other Stytch answer: a 429 a rate limit, a 5xx or a
/// body that is not Stytch's JSON transient. None of them is a verdict on the session.
@Suite struct StytchJWKSFetchTests {
    @Test func refusedFetchesAreClassifiedAsStytchAnswers() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let adapter = try #require(harness.client.stytch)
            let jwt = try await harness.client.accessToken()
            let faults: [(EmulatorFault.Kind, AuthError.Code, Int)] = [
                (.status(503), .transient, 503),
                (.status(429, error: "too_many_requests"), .rateLimited, 429),
                (.nonJSONBody(status: 502), .transient, 502),
            ]
            for (fault, code, status) in faults {
                await harness.emulator.control.inject(EmulatorFault(route: StytchJWTTests.jwks, kind: fault, trigger: .next(20)))
                let error = await authError { _ = try await adapter.verifySessionJWT(jwt) }
                await harness.emulator.control.clearFaults()
                #expect(error?.code == code, "\(fault)")
                #expect(error?.httpStatus == status, "\(fault)")
                if case .nonJSONBody = fault { #expect(error?.message.contains("not JSON") == true) }
                if case .status(429, _) = fault { #expect(error?.providerCode == "too_many_requests") }
                harness.advance(by: 11)  // past the cache's back-off after a failure
            }
            #expect(try await adapter.verifySessionJWT(jwt).subject == harness.client.currentUser?.id)
            #expect(harness.client.currentSession != nil, "the session survived every refusal")
        }
    }
}
