import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyJWT
import Testing

/// Tokens for other APIs live beside the session's own, one set per (audience, scope),
/// as Auth0.swift's `apiCredentials(forAudience:)` keeps them; every renewal for one runs
/// under the store's lock and saves the refresh token they all share.
@Suite("Auth0 token sets per audience and scope")
struct TokenSetTests {
    static let orders = "https://orders.example.com"
    static let billing = "https://billing.example.com"

    static var seed: Auth0Seed {
        var seed = Auth0Seed.standard
        seed.accessTokenLifetime = 3_600
        return seed
    }

    private func harness() async throws -> Auth0Harness {
        try await Auth0Harness(seed: Self.seed, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
    }

    @Test func alternatingCallsForTwoAudiencesMakeOneGrantPerAudiencePerExpiry() async throws {
        let harness = try await harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let own = try await harness.client.accessToken()
        for round in 1...2 {
            var orders = Set<String>(), billing = Set<String>()
            for _ in 0..<5 {
                orders.insert(try await harness.client.accessToken(audience: Self.orders))
                billing.insert(try await harness.client.accessToken(audience: Self.billing))
            }
            #expect(orders.count == 1 && billing.count == 1, "round \(round): one token per audience, kept")
            #expect(orders != billing)
            #expect(try JWT.decode(try #require(orders.first)).claims.audience?.first == Self.orders)
            #expect(try JWT.decode(try #require(billing.first)).claims.audience?.first == Self.billing)
            #expect(await harness.refreshGrants() == 2 * round, "round \(round): one grant per audience")
            harness.advance(by: 3_601)
        }
        // The session's own token was never replaced; it is renewed on its own schedule.
        #expect(await harness.refreshGrants() == 4)
        _ = try await harness.client.accessToken()
        #expect(await harness.refreshGrants() == 5)
        #expect(own != (try await harness.client.accessToken()))
        #expect(harness.client.state == .established)
        // With rotation every grant saved the family's newest refresh token: no reuse was detected.
        let stored = try await harness.secrets()
        let status = try await harness.emulator.control.auth0RefreshTokenStatus(stored[1])
        #expect(status.newest && !status.familyRevoked)
    }

    @Test func concurrentCallersShareOneGrantPerAudienceAndTheSetsSurviveARestart() async throws {
        let harness = try await harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let tokens = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<200 {
                let audience = index.isMultiple(of: 2) ? Self.orders : Self.billing
                group.addTask { (audience, try await harness.client.accessToken(audience: audience)) }
            }
            var all: [String: Set<String>] = [:]
            for try await (audience, token) in group { all[audience, default: []].insert(token) }
            return all
        }
        #expect(tokens[Self.orders]?.count == 1 && tokens[Self.billing]?.count == 1)
        #expect(await harness.refreshGrants() == 2)
        let status = try await harness.emulator.control.auth0RefreshTokenStatus(try await harness.secrets()[1])
        #expect(status.newest && !status.familyRevoked)
        // Another client on the same store (a restart) finds them.
        await harness.client.shutdown()
        let restarted = harness.restarted()
        try await restarted.start()
        #expect(try await restarted.accessToken(audience: Self.orders) == tokens[Self.orders]?.first)
        #expect(try await restarted.accessToken(audience: Self.billing) == tokens[Self.billing]?.first)
        #expect(await harness.refreshGrants() == 2)
        await restarted.shutdown()
    }

    @Test func aRefusedSetLeavesTheSessionAndItsScheduleAlone() async throws {
        let harness = try await harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        await harness.emulator.control.inject(EmulatorFault(route: tokenRoute, grant: "refresh_token", kind: .status(503)))
        let error = await authError { _ = try await harness.client.accessToken(audience: Self.orders) }
        #expect(error?.code == .transient)
        #expect(harness.client.state == .established)
        _ = try await harness.client.accessToken(audience: Self.orders)
        #expect(await harness.refreshGrants() == 2)
    }
}
