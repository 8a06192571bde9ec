import Foundation
import Latchkey
import LatchkeyJWT
import Testing

/// A JWKS cache made from a URL through the core's transport, and the TLS rule.
@Suite struct JWKSTransportTests {
    @Test func verifiesThroughAKeySetFetchedOverLoopbackHTTP() async throws {
        let key = try JWTKey.generate(for: .rs256, keyID: "k1")
        let jwks = JWKSet(keys: [key]).jsonText()
        let server = try LoopbackServer([
            LoopbackServer.status(503, "Unavailable"),
            LoopbackServer.status(200, "OK", headers: "Cache-Control: max-age=60\r\n", body: jwks),
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let cache = try JWKSCache.fetching(from: server.url, transport: URLSessionTransport(), clock: clock)
        let token = try JWT.sign(["sub": "user-1", "exp": .number(clock.now.timeIntervalSince1970 + 300)], key: key)
        let now: @Sendable () -> Date = { clock.now }
        await #expect(throws: (any Error).self) { _ = try await cache.verify(token, options: JWTValidationOptions(now: now)) }
        clock.advance(by: .seconds(11))  // past the cache's back-off after a failure
        let verified = try await cache.verify(token, options: JWTValidationOptions(now: now))
        #expect(verified.claims.subject == "user-1")
    }

    @Test(arguments: [
        ("https://example.com/jwks", true), ("http://127.0.0.1:8080/jwks", true), ("http://127.1.2.3/x", true),
        ("http://[::1]:9/x", true), ("http://localhost/x", true), ("http://127.example.com/x", false),
        ("http://example.com/jwks", false), ("ftp://example.com/x", false), ("http://10.0.0.1/x", false),
    ])
    func tlsIsRequiredExceptToLoopback(url: String, allowed: Bool) throws {
        let result = Result { () throws(AuthError) in try SecureURL.check(URL(string: url)!, what: "the URL") }
        let accepted = (try? result.get()) != nil
        #expect(accepted == allowed, "\(url)")
    }
}

/// The TLS rule applies to provider URLs from the configuration too (`base_url` and
/// every other `.url` setting): an adapter sends passwords, codes and refresh tokens
/// there. https anywhere and http to loopback (the emulator) are accepted.
@Suite struct ProviderURLTLSTests {
    static let accepted = [
        "https://api.stytch.com/", "https://tenant.eu.auth0.com", "http://127.0.0.1:8080/", "http://localhost:9000/",
        "http://[::1]:8443/", "http://127.1.2.3/sdk/v1/",
    ]
    static let plainToARemoteHost = [
        "http://api.stytch.com/", "http://tenant.eu.auth0.com", "http://127.example.com/",
        "http://10.0.0.1:8080/", "http://[::2]/", "HTTP://api.example.com/",
    ]

    @Test(arguments: accepted)
    func httpsAndLoopbackHTTPAreAccepted(url: String) throws {
        #expect(try ProviderSettings(["base_url": url]).url("base_url")?.absoluteString == url)
        let schema = ProviderSettingsSchema([.init("base_url", .url)])
        #expect(throws: Never.self) { _ = try schema.check(ProviderSettings(["base_url": url])) }
    }

    /// Provider URL settings follow SecureURL: credentials never go over plain http to a
    /// remote host.
    @Test(arguments: plainToARemoteHost)
    func plainHTTPToARemoteHostIsRefused(url: String) {
        #expect(throws: AuthError.self, "\(url)") { _ = try ProviderSettings(["base_url": url]).url("base_url") }
        let schema = ProviderSettingsSchema([.init("base_url", .url)])
        #expect(throws: AuthError.self, "\(url)") { _ = try schema.check(ProviderSettings(["base_url": url])) }
        // The rule the settings should follow already refuses each of these.
        #expect(throws: AuthError.self) { try SecureURL.check(URL(string: url)!, what: "base_url") }
    }
}
