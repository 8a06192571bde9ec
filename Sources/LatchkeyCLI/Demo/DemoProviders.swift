import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySocialPlus
import LatchkeyStytch

extension Demo {
    func stytch() async throws {
        Demo.step("Stytch: password login, restart, an expired session JWT renewed, secure logout")
        let endpoint = try require(emulator.stytch, "the Stytch emulator")
        let user = try require(emulator.seed.stytch.users.first, "a seeded Stytch user")
        let clock = ManualClock(now: Date())
        let configuration = LatchkeyConfiguration(
            provider: "stytch",
            settings: [
                "public_token": emulator.seed.stytch.publicToken, "app_identifier": endpoint.appIdentifier,
                "base_url": endpoint.baseURL.absoluteString,
            ],
            session: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        let first = try client(configuration, clock: clock)
        let watching = watch(first, "stytch")
        try await first.start()
        try await first.login(StytchCredentials.password(email: user.email, password: user.password), sessionDuration: .seconds(3600))
        try await Task.sleep(for: .milliseconds(50))
        try expect(first.state == .established, "logged in as \(user.email)")
        await first.shutdown()
        watching.cancel()

        let restarted = try client(configuration, clock: clock)
        try await restarted.start()
        try expect(
            restarted.state == .established && restarted.currentUser?.email == user.email,
            "a new client restored the session from the \(restarted.store.backendName) store")
        let before = try await restarted.accessToken()
        clock.advance(by: .seconds(301))
        emulator.control.advanceClock(by: 301)
        let after = try await restarted.accessToken()
        try expect(before != after, "301 s later the 5-minute session JWT was renewed transparently")
        try await restarted.logout(revoke: .required)
        try expect(restarted.state == .notLoggedIn, "secure logout revoked the session at Stytch, then cleared it")
        await restarted.shutdown()
    }

    func auth0() async throws {
        Demo.step("Auth0: device login approved by the demo, rotation-safe refresh")
        let endpoint = try require(emulator.auth0, "the Auth0 emulator")
        let control = emulator.control
        let configuration = LatchkeyConfiguration(
            provider: "auth0",
            settings: ["domain": endpoint.domain, "client_id": endpoint.clientID, "base_url": endpoint.baseURL.absoluteString],
            session: SessionOptions(heartbeatInterval: nil))
        // The device's clock reads the emulator's, which the Stytch step moved ahead: ID
        // tokens issued "in the future" beyond the leeway are refused.
        let client = try client(configuration, clock: EmulatorTime(clock: control.clock))
        let watching = watch(client, "auth0")
        try await client.start()
        Demo.say("   (polling Auth0 every few seconds until the code is approved)")
        try await client.login(
            Auth0Credentials.deviceCode { code in
                Demo.say("   \(code.description)  — approving it as alice…")
                Task { try? await control.approveDevice(userCode: code.userCode) }
            })
        try await Task.sleep(for: .milliseconds(50))
        try expect(client.state == .established, "the device login completed")
        let before = try await client.accessToken()
        try await client.renew()
        let after = try await client.accessToken()
        try expect(before != after, "a refresh grant rotated the tokens; the new refresh token was saved before use")
        try await client.logout(revoke: .required)
        try await Task.sleep(for: .milliseconds(50))  // let the stream print the logout
        watching.cancel()
        await client.shutdown()
    }

    func socialPlus() async throws {
        Demo.step("social.plus: login, an authorized request, a global ban reaching terminated")
        let endpoint = try require(emulator.socialPlus, "the social.plus emulator")
        let configuration = LatchkeyConfiguration(
            provider: "socialplus",
            settings: ["api_key": endpoint.apiKey, "base_url": endpoint.baseURL.absoluteString],
            session: SessionOptions(heartbeatInterval: nil))
        let client = try client(configuration)
        let watching = watch(client, "social.plus")
        try await client.start()
        try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice"))
        let response = try await client.send(TransportRequest(url: endpoint.baseURL.appending(path: "api/v3/users/alice")))
        try expect(response.status == 200, "client.send attached the access token (GET /api/v3/users/alice → \(response.status))")
        try await emulator.control.banUser("alice", provider: .socialPlus)
        _ = try? await client.renew()
        try await Task.sleep(for: .milliseconds(50))
        try expect(client.state == .terminated(.globalBan), "the ban ended the session: terminated(globalBan)")
        try await client.logout()
        try expect(client.state == .notLoggedIn, "only a logout leaves terminated")
        try await Task.sleep(for: .milliseconds(50))
        watching.cancel()
        await client.shutdown()
    }

    private func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw DemoFailure("\(what) is running") }
        return value
    }
}

/// A client clock that reads the emulator's time and sleeps in real time.
private struct EmulatorTime: SessionClock {
    let clock: EmulatorClock

    var now: Date { clock.now }

    func sleep(until deadline: Date) async throws {
        let wait = deadline.timeIntervalSince(clock.now)
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
    }
}
