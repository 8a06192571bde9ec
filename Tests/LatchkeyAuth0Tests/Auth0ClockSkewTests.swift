import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device clock 10 minutes ahead of Auth0's and 10 minutes behind. `expires_in` is a
/// lifetime already; the ID token's `session_expiry` is an absolute time on Auth0's clock,
/// so what was left of the session when the ID token was issued (`session_expiry − iat`)
/// starts at receipt. The session then ends when Auth0's does (30 s before), neither ten
/// minutes early nor ten minutes late; until then no renewal storm (counted at the
/// emulator), no `largeMinTTL`, and every access token handed out is accepted.
@Suite struct Auth0ClockSkewTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [600.0, -600.0])
    func aSkewedClockKeepsTheSessionToAuth0sEnd(skew: TimeInterval) async throws {
        var seed = Auth0Seed.standard
        seed.accessTokenLifetime = 600
        seed.sessionLifetime = 3600
        var emulatorOptions = EmulatorOptions(providers: [.auth0], clockStart: Self.start)
        emulatorOptions.seed.auth0 = seed
        let emulator = try await Emulator.start(emulatorOptions)
        let auth0 = try #require(emulator.auth0)
        let clock = ManualClock(now: Self.start.addingTimeInterval(skew))
        let logs = LogCapture()
        let provider = Auth0Provider(
            configuration: try Auth0Configuration(domain: auth0.domain, clientID: auth0.clientID, baseURL: auth0.baseURL),
            transport: URLSessionTransport(), clock: clock, logger: logs.logger)
        let client = AuthClient(
            provider: provider, store: try MemorySecretStore(namespace: "auth0-skew"),
            options: SessionOptions(heartbeatInterval: nil, renewsProactively: false), transport: URLSessionTransport(),
            clock: clock, logger: logs.logger)
        do {
            try await client.start()
            try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1", realm: auth0.connection))
            // Auth0's session ends at 3,600 s; the client's 30 s before. Up to 3,480 s a
            // token good for a minute more is always at hand.
            for _ in 0..<58 {
                emulator.control.advanceClock(by: 60)
                clock.advance(by: .seconds(60))
                let token = try await client.accessToken(minTTL: .seconds(60))
                var request = URLRequest(url: auth0.baseURL.appending(path: "userinfo"))
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                let (_, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 200, "the emulator refused the access token at \(clock.now)")
                #expect(client.state == .established || client.state == .tokenExpired)
            }
            // 10-minute access tokens renewed once less than a minute is left: 5 or 6.
            let refreshes = await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "refresh_token")
            #expect((4...7).contains(refreshes), "\(refreshes) refreshes")
            // Past Auth0's end of the session (3,600 s on its clock), the session is over here too.
            emulator.control.advanceClock(by: 120)
            clock.advance(by: .seconds(120))
            await #expect(throws: AuthError.self) { _ = try await client.accessToken(minTTL: .seconds(1)) }
            #expect(client.state == .notLoggedIn)
        } catch {
            await client.shutdown()
            await emulator.stop()
            throw error
        }
        await client.shutdown()
        await emulator.stop()
    }
}
