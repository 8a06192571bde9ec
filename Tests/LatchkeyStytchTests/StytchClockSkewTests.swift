import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySecrets
import LatchkeyStytch
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device clock 10 minutes ahead of Stytch's and 10 minutes behind: the session JWT's
/// 5-minute lifetime (`exp − iat`) starts when the answer is received, so an hour of use
/// renews about every 4 minutes — no renewal storm (counted at the emulator), no
/// `largeMinTTL`, no logout — and every token handed out is one the emulator accepts.
@Suite struct StytchClockSkewTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [600.0, -600.0], [false, true])
    func aSkewedClockRenewsOnTheJWTsLifetime(skew: TimeInterval, b2b: Bool) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch], clockStart: Self.start))
        let endpoint = try #require(emulator.stytch)
        let clock = ManualClock(now: Self.start.addingTimeInterval(skew))
        let logs = LogCapture()
        let registry = ProviderRegistry()
        registry.register(StytchProvider.factory)
        registry.register(StytchB2BProvider.factory)
        let configuration = LatchkeyConfiguration(
            provider: b2b ? StytchB2BProvider.identifier : StytchProvider.identifier,
            settings: [
                "public_token": endpoint.publicToken, "base_url": endpoint.baseURL.absoluteString, "project_id": endpoint.projectID,
                "app_identifier": endpoint.appIdentifier,
            ],
            session: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        let client = try registry.makeClient(
            configuration, store: try MemorySecretStore(namespace: "stytch-skew"),
            transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: clock, logger: logs.logger)
        do {
            try await client.start()
            if b2b {
                try await client.login(
                    StytchB2BCredentials.password(
                        organizationID: B2B.acme, emailAddress: "bob@acme.example",
                        password: "bob-password-1"), sessionDuration: .seconds(7200))
            } else {
                try await client.login(
                    StytchCredentials.password(email: "alice@example.com", password: "alice-password-1"),
                    sessionDuration: .seconds(7200))
            }
            let renewalPath = b2b ? "/sdk/v1/b2b/sessions/authenticate" : "/sdk/v1/sessions/authenticate"
            let appPath = b2b ? "__app/b2b/session" : "__app/session"
            for _ in 0..<60 {
                emulator.control.advanceClock(by: 60)
                clock.advance(by: .seconds(60))
                let jwt = try await client.accessToken(minTTL: .seconds(60))
                var request = URLRequest(url: endpoint.baseURL.appending(path: appPath))
                request.setValue("Bearer \(jwt)", forHTTPHeaderField: "Authorization")
                let (_, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 200, "the emulator refused the JWT at \(clock.now)")
                #expect(client.state == .established || client.state == .tokenExpired)
            }
            // An hour of 5-minute JWTs, each renewed once less than a minute is left: 12.
            let renewals = await emulator.control.count(EmulatorRoute(.stytch, "POST", renewalPath))
            #expect((10...14).contains(renewals), "\(renewals) renewals in an hour")
        } catch {
            await client.shutdown()
            await emulator.stop()
            throw error
        }
        await client.shutdown()
        await emulator.stop()
    }
}
