import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Synchronization
import Testing

@Suite("Auth0 device login (RFC 8628) in simulated time")
struct DeviceFlowTests {
    static var seed: Auth0Seed {
        var seed = Auth0Seed.standard
        seed.deviceApprovalPolls = 0
        return seed
    }

    /// Starts a device login in the background; returns the task and the presented code.
    private func start(_ harness: Auth0Harness) async throws -> (Task<Void, any Error>, Auth0DeviceCode) {
        try await harness.client.start()
        let presented = Mutex<Auth0DeviceCode?>(nil)
        let client = harness.client
        let task = Task {
            try await client.login(Auth0Credentials.deviceCode { code in presented.withLock { $0 = code } })
        }
        await harness.clock.waitForSleepers(1)
        let code = try #require(presented.withLock { $0 })
        return (task, code)
    }

    /// Lets the next poll happen: advances both clocks to the sleeper's deadline.
    private func poll(_ harness: Auth0Harness) async {
        await harness.clock.waitForSleepers(1)
        guard let deadline = harness.clock.nextDeadline else { return }
        harness.advance(by: deadline.timeIntervalSince(harness.clock.now))
    }

    private var devicePolls: (Auth0Harness) async -> Int {
        { await $0.count("POST", "/oauth/token", grant: "urn:ietf:params:oauth:grant-type:device_code") }
    }

    @Test func pendingThenApproved() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let (task, code) = try await start(harness)
        #expect(code.verificationURI.absoluteString.hasSuffix("/activate"))
        #expect(code.expiresAt == Auth0Harness.start.addingTimeInterval(900))
        #expect(harness.clock.nextDeadline == Auth0Harness.start.addingTimeInterval(5))
        await poll(harness)
        await settle("first poll answered pending") { await devicePolls(harness) == 1 && harness.clock.sleeperCount == 1 }
        try await harness.emulator.control.approveDevice(userCode: code.userCode)
        await poll(harness)
        try await task.value
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "auth0|alice")
        #expect(await devicePolls(harness) == 2)
    }

    @Test func slowDownAddsFiveSeconds() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        await harness.emulator.control.inject(
            EmulatorFault(
                route: tokenRoute, grant: "urn:ietf:params:oauth:grant-type:device_code",
                kind: .status(429, error: "slow_down")))
        let (task, code) = try await start(harness)
        await poll(harness)
        await settle("slow_down answered") { await devicePolls(harness) == 1 && harness.clock.sleeperCount == 1 }
        #expect(harness.clock.nextDeadline == harness.clock.now.addingTimeInterval(10))
        try await harness.emulator.control.approveDevice(userCode: code.userCode)
        await poll(harness)
        try await task.value
        #expect(harness.client.state == .established)
    }

    @Test func deniedFailsTheLogin() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let (task, code) = try await start(harness)
        try await harness.emulator.control.denyDevice(userCode: code.userCode)
        await poll(harness)
        let error = await authError { try await task.value }
        #expect(error?.providerCode == "access_denied")
        #expect(harness.client.state == .notLoggedIn)
    }

    @Test func expiredFailsTheLogin() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let (task, _) = try await start(harness)
        // The emulator's code expires first (polled past its 900 s); it answers expired_token.
        harness.emulator.control.advanceClock(by: 901)
        await poll(harness)
        let error = await authError { try await task.value }
        #expect(error?.providerCode == "expired_token")
        #expect(error?.code == .unrecoverable)
        #expect(harness.client.state == .notLoggedIn)
    }

    @Test func aNetworkFailureWhilePollingDoesNotEndTheLogin() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        await harness.emulator.control.inject(
            EmulatorFault(
                route: tokenRoute, grant: "urn:ietf:params:oauth:grant-type:device_code",
                kind: .status(503)))
        let (task, code) = try await start(harness)
        await poll(harness)
        await settle("the 503 was answered") { await devicePolls(harness) == 1 && harness.clock.sleeperCount == 1 }
        try await harness.emulator.control.approveDevice(userCode: code.userCode)
        await poll(harness)
        try await task.value
        #expect(harness.client.state == .established)
    }

    @Test func logoutCancelsPolling() async throws {
        let harness = try await Auth0Harness(seed: Self.seed)
        defer { Task { await harness.stop() } }
        let (task, _) = try await start(harness)
        try await harness.client.logout()
        let error = await authError { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(harness.client.state == .notLoggedIn)
        await settle("the poll loop stopped sleeping") { harness.clock.sleeperCount == 0 }
        harness.advance(by: 60)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await devicePolls(harness) == 0)
    }
}
