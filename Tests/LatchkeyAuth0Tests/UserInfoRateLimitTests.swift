import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Testing

/// `/userinfo` is limited per user (Auth0: a burst of 10, then 5 a minute; the emulator
/// enforces it on its clock). The heartbeat stays inside the limit, and a 429 caused
/// elsewhere is waited out until its reset — the session is never lost to it.
@Suite("Auth0 /userinfo rate limit: the heartbeat respects it and outlasts a 429")
struct UserInfoRateLimitTests {
    /// Runs the heartbeat for `seconds` of simulated time, one wake-up at a time: waits
    /// until it sleeps again (with the expiry timer: two sleepers), then moves both clocks
    /// to its deadline.
    private func runHeartbeats(_ harness: Auth0Harness, for seconds: TimeInterval) async throws {
        let end = harness.clock.now.addingTimeInterval(seconds)
        while harness.clock.now < end {
            await harness.clock.waitForSleepers(2)
            let next = try #require(harness.clock.nextDeadline)
            harness.advance(by: min(next, end).timeIntervalSince(harness.clock.now))
        }
    }

    private func userInfoStatuses(_ harness: Auth0Harness) async -> [Int] {
        await harness.emulator.control.requests(route: userInfoRoute).compactMap(\.status)
    }

    @Test func aHeartbeatSixTimesTooFastStaysWithinTheLimitForTenMinutes() async throws {
        let harness = try await Auth0Harness(options: SessionOptions(heartbeatInterval: .seconds(2), renewsProactively: false))
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        try await runHeartbeats(harness, for: 600)
        let statuses = await userInfoStatuses(harness)
        #expect(!statuses.contains(429), "never a 429")
        #expect(statuses.allSatisfy { $0 == 200 })
        // 10 at once, then 5 a minute: at most 60 in 10 minutes — and the heartbeat uses them.
        #expect(statuses.count <= 60)
        #expect(statuses.count >= 55, "\(statuses.count) checks")
        #expect(harness.client.state == .established)
        #expect(await harness.client.endError == nil)
    }

    @Test func aCallOverTheLimitIsNotSent() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let current = AuthenticatedSession(
            tokens: SessionTokens(accessToken: try await harness.client.accessToken()),
            user: User(id: "auth0|alice"))
        for _ in 0..<10 { _ = try await harness.provider.validate(current) }
        let refused = await authError { _ = try await harness.provider.validate(current) }
        #expect(refused?.code == .rateLimited)
        #expect(refused?.retryAfter == .seconds(12), "one request every 12 s")
        #expect(refused?.httpStatus == nil, "refused here, not by Auth0")
        #expect(await harness.count("GET", "/userinfo") == 10)
        harness.advance(by: 12)
        _ = try await harness.provider.validate(current)
        #expect(await harness.count("GET", "/userinfo") == 11)
        #expect(await userInfoStatuses(harness).allSatisfy { $0 == 200 })
    }

    /// With the device's clock in step with Auth0's, and 10 minutes ahead or behind: the
    /// reset is measured against the 429's own `Date`, so the wait is Auth0's window —
    /// not nothing (a clock ahead), not 10 minutes more (a clock behind).
    @Test(arguments: [0.0, 600.0, -600.0])
    func a429FromAnotherDeviceIsWaitedOutUntilItsResetAndTheSessionKept(skew: TimeInterval) async throws {
        let harness = try await Auth0Harness(
            options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false),
            clockSkew: skew)
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let accessToken = try await harness.client.accessToken()
        await harness.clock.waitForSleepers(2)
        harness.advance(by: 179)
        // Another device of the same user spends the whole burst just before the heartbeat.
        let transport = URLSessionTransport()
        for _ in 0..<10 {
            var request = TransportRequest(url: harness.auth0.baseURL.appending(path: "userinfo"))
            request.headers["Authorization"] = "Bearer \(accessToken)"
            #expect(try await transport.send(request).status == 200)
        }
        harness.advance(by: 1)
        await settle("the heartbeat met the 429") { await userInfoStatuses(harness).last == 429 }
        let limited = try #require(await harness.emulator.control.requests(route: userInfoRoute).last)
        // The reset: the bucket is full again 119 s later (1 s refilled 1/12 of a request),
        // on the local clock from the moment the 429 arrived.
        let reset = limited.date.addingTimeInterval(skew + 119)
        await harness.clock.waitForSleepers(2)
        #expect(harness.clock.nextDeadline.map { $0 >= reset } == true, "the heartbeat sleeps until the reset")
        #expect(harness.client.state == .established)
        harness.advance(by: 118)
        try await Task.sleep(for: .milliseconds(20))
        #expect(await userInfoStatuses(harness).count == 11, "nothing sent before the reset")
        harness.advance(by: 1)
        await settle("the heartbeat checked again after the reset") { await userInfoStatuses(harness).count == 12 }
        #expect(await userInfoStatuses(harness).last == 200)
        #expect(await userInfoStatuses(harness).filter { $0 == 429 }.count == 1)
        #expect(harness.client.state == .established)
        #expect(await harness.client.endError == nil)
        #expect(try await harness.store.string(SessionOptions().vaultEntryName) != nil)
    }

    /// One check at a time, counted at the emulator, with the device's clock 10 minutes
    /// ahead of Auth0's or behind: after a 429 whose reset is 120 s past its `Date`,
    /// nothing is sent for 120 s of local time, and the first check after that is answered.
    @Test(arguments: [600.0, -600.0])
    func aSkewedClockWaitsAuth0sWindowAfterA429(skew: TimeInterval) async throws {
        let harness = try await Auth0Harness(clockSkew: skew)
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        let accessToken = try await harness.client.accessToken()
        let current = AuthenticatedSession(tokens: SessionTokens(accessToken: accessToken), user: User(id: "auth0|alice"))
        // Another device of the same user spends the whole burst.
        let transport = URLSessionTransport()
        for _ in 0..<10 {
            var request = TransportRequest(url: harness.auth0.baseURL.appending(path: "userinfo"))
            request.headers["Authorization"] = "Bearer \(accessToken)"
            #expect(try await transport.send(request).status == 200)
        }
        let limited = await authError { _ = try await harness.provider.validate(current) }
        #expect(limited?.code == .rateLimited)
        #expect(limited?.httpStatus == 429)
        #expect(limited?.retryAfter == .seconds(120), "Auth0's window, whatever the local clock says")
        #expect(await userInfoStatuses(harness) == Array(repeating: 200, count: 10) + [429])
        harness.advance(by: 119)
        let held = await authError { _ = try await harness.provider.validate(current) }
        #expect(held?.code == .rateLimited)
        #expect(held?.httpStatus == nil, "refused here, not sent")
        #expect(held?.retryAfter == .seconds(1))
        #expect(await userInfoStatuses(harness).count == 11, "nothing sent before the reset")
        harness.advance(by: 1)
        _ = try await harness.provider.validate(current)
        #expect(await userInfoStatuses(harness) == Array(repeating: 200, count: 10) + [429, 200])
    }

    /// A 429 from the token endpoint (a limit elsewhere in the tenant) carries its reset on
    /// Auth0's clock too: the error's wait is Auth0's minute, with the clock ahead or behind.
    @Test(arguments: [600.0, -600.0])
    func aTokenEndpoint429GivesAuth0sWaitWhateverTheLocalClock(skew: TimeInterval) async throws {
        let harness = try await Auth0Harness(clockSkew: skew)
        defer { Task { await harness.stop() } }
        await harness.emulator.control.inject(EmulatorFault(route: tokenRoute, kind: .status(429)))
        let error = await authError { try await harness.loginAlice() }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(60))
        #expect(harness.client.state == .notLoggedIn)
    }
}
