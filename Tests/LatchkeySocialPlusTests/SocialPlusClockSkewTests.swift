import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySecrets
import LatchkeySocialPlus
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device clock 10 minutes ahead of social.plus's and 10 minutes behind: the access
/// token's lifetime (`expiresAt − issuedAt`) starts when the login answer is received, so
/// with 20-minute tokens (usable 15 minutes: expired at `expiresAt − 5 min`) an hour of
/// use logs in again about every quarter of an hour — no renewal storm (counted at the
/// emulator), no `largeMinTTL`, no logout — and every token handed out is accepted.
@Suite struct SocialPlusClockSkewTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [600.0, -600.0])
    func aSkewedClockRenewsOnTheTokensLifetime(skew: TimeInterval) async throws {
        var seed = SocialPlusSeed.standard
        seed.accessTokenLifetime = 1200
        let emulator = try await Emulator.start(
            EmulatorOptions(providers: [.socialPlus], seed: EmulatorSeed(socialPlus: seed), clockStart: Self.start))
        let endpoint = try #require(emulator.socialPlus)
        let clock = ManualClock(now: Self.start.addingTimeInterval(skew))
        let logs = LogCapture()
        let registry = ProviderRegistry()
        registry.register(SocialPlusProvider.factory)
        let configuration = LatchkeyConfiguration(
            provider: "socialplus",
            settings: ["api_key": endpoint.apiKey, "base_url": endpoint.baseURL.absoluteString],
            session: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        let client = try registry.makeClient(
            configuration, store: try MemorySecretStore(namespace: "socialplus-skew"),
            transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: clock, logger: logs.logger)
        do {
            try await client.start()
            try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice"))
            for _ in 0..<60 {
                emulator.control.advanceClock(by: 60)
                clock.advance(by: .seconds(60))
                let token = try await client.accessToken(minTTL: .seconds(60))
                var request = URLRequest(url: endpoint.baseURL.appending(path: "api/v3/users/alice"))
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                let (_, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 200, "the emulator refused the access token at \(clock.now)")
                #expect(client.state == .established || client.state == .tokenExpired)
            }
            // Usable 15 minutes, renewed once less than a minute is left: the first login
            // and 4 more in an hour.
            let logins = await emulator.control.count(EmulatorRoute(.socialPlus, "POST", "/api/v5/sessions"))
            #expect((4...6).contains(logins), "\(logins) logins")
        } catch {
            await client.shutdown()
            await emulator.stop()
            throw error
        }
        await client.shutdown()
        await emulator.stop()
    }
}
