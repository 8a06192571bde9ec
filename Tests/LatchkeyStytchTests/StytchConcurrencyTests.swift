import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeyStytch
import Testing

/// The stale-session race (SDK-1336) and single-flight renewal, end to end.
@Suite struct StytchConcurrencyTests {
    @Test func aLogoutDuringAnInFlightAuthenticateWins() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.inject("sessions/authenticate", .delay(milliseconds: 600))
            let sent = harness.transport.all.count
            let renewal = Task { try await harness.client.renew() }
            await settle("authenticate sent") { harness.transport.all.count > sent }
            try await harness.client.logout()
            let result = await renewal.result
            #expect((try? result.get()) == nil, "the answer is not applied")
            if case .failure(let error as AuthError) = result { #expect(error.code == .cancelled) }
            #expect(harness.client.state == .notLoggedIn)
            #expect(harness.client.currentUser == nil)
            #expect(try await harness.storedRecord() == nil)
            #expect(await harness.count("sessions/authenticate") == 1, "the answer arrived")
        }
    }

    @Test func aNewLoginDuringAnInFlightHeartbeatIsNotOverwritten() async throws {
        try await StytchHarness.with(options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false)) { harness in
            try await harness.loginAlice()
            let old = try #require(harness.client.currentSession?.id)
            await harness.clock.waitForSleepers(2)
            await harness.inject("sessions/authenticate", .delay(milliseconds: 600))
            harness.advance(by: 180)
            // At the emulator, held by the delay — not merely handed to the transport: a
            // logout cancels the heartbeat, and AsyncHTTPClient drops a request that has
            // not left yet, so the old answer would never come.
            await settle("heartbeat at the emulator") { await harness.emulator.control.pendingFaults().isEmpty }
            try await harness.client.logout()
            try await harness.loginAlice()
            let new = try #require(harness.client.currentSession?.id)
            #expect(new != old)
            await settle("old answer arrived") { await harness.count("sessions/authenticate") == 1 }
            try await Task.sleep(for: .milliseconds(50))
            #expect(harness.client.currentSession?.id == new)
            #expect(try await harness.storedRecord()?.contains(new) == true)
            #expect(try await harness.storedRecord()?.contains(old) == false)
            #expect(harness.client.state == .established)
        }
    }

    @Test func aHundredConcurrentRefusedSendsRenewOnce() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            let stale = try await harness.client.accessToken()
            harness.transport.app.withLock {
                $0 = { request in TransportResponse(status: request.headers["Authorization"] == "Bearer \(stale)" ? 401 : 200) }
            }
            harness.advance(by: 10)  // so the renewed JWT differs from the stale one
            await harness.emulator.control.resetRequestLog()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask { try await harness.client.send(TransportRequest(url: URL(string: "https://app.test/items/\(index)")!)).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            #expect(await harness.count("sessions/authenticate") == 1)
            #expect(try await harness.client.accessToken() != stale)
        }
    }
}
