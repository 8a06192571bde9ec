import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import Testing

@testable import LatchkeyAuth0

/// Auth0's signing keys come through the core's one JWKS fetcher; a refused fetch is
/// transient whatever the tenant answered (the cache keeps its last good set).
@Suite struct Auth0JWKSFetchTests {
    static let jwks = EmulatorRoute(.auth0, "GET", "/.well-known/jwks.json")

    @Test(arguments: [EmulatorFault.Kind.status(503), .status(429, error: "too_many_requests"), .nonJSONBody(status: 502)])
    func aRefusedFetchIsTransient(fault: EmulatorFault.Kind) async throws {
        let harness = try await Auth0Harness()
        let configuration = try Auth0Configuration(domain: harness.auth0.domain, clientID: harness.auth0.clientID, baseURL: harness.auth0.baseURL)
        let keys = Auth0API(configuration: configuration, transport: URLSessionTransport(), clock: harness.clock).jwksCache()
        await harness.emulator.control.inject(EmulatorFault(route: Self.jwks, kind: fault, trigger: .next(1)))
        let error = await authError { _ = try await keys.keySet() }
        #expect(error?.code == .transient)
        #expect(error?.message.contains("for its signing keys") == true)
        let status =
            switch fault {
            case .status(let status, _), .nonJSONBody(let status): status
            default: 0
            }
        #expect(error?.httpStatus == status)
        #expect(await harness.emulator.control.count(Self.jwks) == 1)

        harness.advance(by: 11)  // past the cache's back-off after a failure
        #expect(try await keys.keySet().keys.isEmpty == false, "the next fetch succeeds")
    }

    /// The TLS rule of the one fetcher applies: plain http to a remote host is never fetched.
    @Test func plainHTTPToARemoteHostIsAConfigurationError() async throws {
        // The initializer refuses such a base URL; a configuration changed after it must not slip through.
        var configuration = try Auth0Configuration(domain: "tenant.example", clientID: "client")
        configuration.baseURL = try #require(URL(string: "http://tenant.example/"))
        let keys = Auth0API(configuration: configuration, transport: URLSessionTransport(), clock: ManualClock()).jwksCache()
        let error = await authError { _ = try await keys.keySet() }
        #expect(error?.code == .configuration)
    }
}
