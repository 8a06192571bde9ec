import Foundation
import LatchkeyJSON
import Testing

@testable import LatchkeyJWT

/// A JWKS endpoint stand-in that counts its fetches.
actor CountingJWKSServer {
    struct Down: Error {}

    private(set) var fetches = 0
    var keys: [JWTKey]
    var cacheControl: String?
    var failing = false
    var body: String?
    var delay: Duration = .zero

    init(keys: [JWTKey], cacheControl: String? = nil) {
        self.keys = keys
        self.cacheControl = cacheControl
    }

    func respond() async throws -> JWKSCache.Response {
        fetches += 1
        if delay > .zero { try await Task.sleep(for: delay) }
        if failing { throw Down() }
        let text = body ?? JWKSet(keys: keys).jsonText()
        return JWKSCache.Response(body: Array(text.utf8), cacheControl: cacheControl)
    }

    func publish(_ keys: [JWTKey]) { self.keys = keys }
    func setFailing(_ failing: Bool) { self.failing = failing }
    func setBody(_ body: String?) { self.body = body }
    func setDelay(_ delay: Duration) { self.delay = delay }
}

@Suite struct JWKSCacheTests {
    static let claims: JSONObject = ["sub": "cache-test"]

    static func key(_ kid: String, _ algorithm: JWSAlgorithm = .es256) throws -> JWTKey {
        try JWTKey.generate(for: algorithm, keyID: kid)
    }

    static func make(_ server: CountingJWKSServer, clock: TestClock, refetchInterval: TimeInterval = 60) -> JWKSCache {
        var options = JWKSCache.Options()
        options.refetchInterval = refetchInterval
        return JWKSCache(options: options, now: clock.function) { try await server.respond() }
    }

    /// Validation options on the same simulated clock.
    static func options(_ clock: TestClock) -> JWTValidationOptions { JWTValidationOptions(now: clock.function) }

    @Test func oneFetchForAThousandConcurrentVerifications() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey])
        // The fetch is slow, so every caller arrives while it is in flight.
        await server.setDelay(.milliseconds(100))
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        let token = try JWT.sign(Self.claims, key: signer)
        let options = Self.options(clock)
        let verified = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await cache.verify(token, options: options).claims.subject }
            }
            var count = 0
            for try await subject in group where subject == "cache-test" { count += 1 }
            return count
        }
        #expect(verified == 1_000)
        #expect(await server.fetches == 1)
        #expect(cache.fetchCount == 1)
    }

    /// The hot path takes no turn behind fetching: while an unknown-kid refetch hangs at
    /// the server (two seconds), a hundred tokens signed with a known key verify, and the
    /// refetch's answer is taken once it comes.
    @Test func knownKidsVerifyWhileARefetchIsInFlight() async throws {
        let old = try Self.key("old"), rotated = try Self.key("rotated")
        let server = CountingJWKSServer(keys: [old.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        let options = Self.options(clock)
        _ = try await cache.verify(try JWT.sign(Self.claims, key: old), options: options)
        await server.publish([old.publicKey, rotated.publicKey])
        await server.setDelay(.seconds(2))
        let refetching = Task { try await cache.verify(try JWT.sign(Self.claims, key: rotated), options: options) }
        while await server.fetches < 2 { await Task.yield() }
        for _ in 0..<100 {
            #expect(try await cache.verify(try JWT.sign(Self.claims, key: old), options: options).claims.subject == "cache-test")
        }
        #expect(cache.fetchCount == 2)
        #expect(try await refetching.value.claims.subject == "cache-test")
        #expect(try await cache.keySet().contains(keyID: "rotated"))
        #expect(await server.fetches == 2)
    }

    @Test func aFloodOfBogusKidsCausesOneRefetch() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        await server.setDelay(.milliseconds(50))
        let tokens = try (0..<200).map { try JWT.sign(Self.claims, key: Self.key("bogus-\($0)")) }
        let options = Self.options(clock)
        let notFound = await withTaskGroup(of: Bool.self) { group in
            for token in tokens {
                group.addTask {
                    do {
                        _ = try await cache.verify(token, options: options)
                        return false
                    } catch let error as JWTError {
                        return error.code == .keyNotFound
                    } catch { return false }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(notFound == tokens.count)
        #expect(await server.fetches == 2)
    }

    @Test func unknownKidRefetchesOnceThenWaitsForTheInterval() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock, refetchInterval: 60)
        _ = try await cache.keySet()
        #expect(await server.fetches == 1)
        let options = Self.options(clock)

        let unknown = try JWT.sign(Self.claims, key: Self.key("unknown"))
        await expectJWTError(.keyNotFound) { try await cache.verify(unknown, options: options) }
        #expect(await server.fetches == 2, "one refetch for the unknown kid")

        await expectJWTError(.keyNotFound) { try await cache.verify(unknown, options: options) }
        let another = try JWT.sign(Self.claims, key: Self.key("another"))
        await expectJWTError(.keyNotFound) { try await cache.verify(another, options: options) }
        clock.advance(by: 59)
        await expectJWTError(.keyNotFound) { try await cache.verify(another, options: options) }
        #expect(await server.fetches == 2, "no second refetch within the interval")

        clock.advance(by: 1)
        await expectJWTError(.keyNotFound) { try await cache.verify(another, options: options) }
        #expect(await server.fetches == 3, "a refetch once the interval has passed")
    }

    @Test func knownKidsNeverRefetchWhileFresh() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        let token = try JWT.sign(Self.claims, key: signer)
        for _ in 0..<50 {
            _ = try await cache.verify(token, options: Self.options(clock))
            clock.advance(by: 10)
        }
        // 500 simulated seconds, inside the default 600 s TTL.
        #expect(await server.fetches == 1)
        // A bad signature with a known kid is not a reason to refetch.
        var parts = TokenParts(token)
        parts.signature[0] ^= 1
        await expectJWTError(.signatureInvalid) { try await cache.verify(parts.token, options: Self.options(clock)) }
        #expect(await server.fetches == 1)
    }

    @Test func keyRotationIsPickedUpOnTheUnknownKid() async throws {
        let old = try Self.key("2024-01"), new = try Self.key("2024-02", .rs256)
        let server = CountingJWKSServer(keys: [old.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.verify(JWT.sign(Self.claims, key: old), options: Self.options(clock))
        // The issuer publishes the new key and starts signing with it.
        await server.publish([old.publicKey, new.publicKey])
        let jwt = try await cache.verify(JWT.sign(Self.claims, key: new), options: Self.options(clock))
        #expect(jwt.header.keyID == "2024-02")
        #expect(await server.fetches == 2)
        #expect(try await cache.keySet().contains(keyID: "2024-02"))
        // Later the old key is retired; tokens signed with it fail once the set refreshes.
        await server.publish([new.publicKey])
        clock.advance(by: 601)
        await expectJWTError(.keyNotFound) { try await cache.verify(JWT.sign(Self.claims, key: old), options: Self.options(clock)) }
    }

    @Test func cacheControlMaxAgeIsHonoured() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey], cacheControl: "public, max-age=120")
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        clock.advance(by: 119)
        _ = try await cache.keySet()
        #expect(await server.fetches == 1, "fresh before max-age")
        clock.advance(by: 1)
        _ = try await cache.keySet()
        #expect(await server.fetches == 2, "refetched at max-age")
        // The new response's max-age counts from the refetch.
        clock.advance(by: 119)
        _ = try await cache.keySet()
        #expect(await server.fetches == 2)
    }

    @Test func withoutMaxAgeTheDefaultTTLApplies() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        clock.advance(by: 599)
        _ = try await cache.keySet()
        #expect(await server.fetches == 1)
        clock.advance(by: 1)
        _ = try await cache.keySet()
        #expect(await server.fetches == 2)
    }

    @Test(
        arguments: [
            (nil, 600.0), ("max-age=120", 120), ("public, max-age=3600, must-revalidate", 3600), ("Max-Age = 90", 90),
            ("max-age=\"300\"", 300), ("max-age=5", 30), ("max-age=0", 30), ("max-age=999999", 86_400), ("no-store", 30),
            ("no-cache", 30), ("max-age=-5", 600), ("max-age=abc", 600), ("private", 600), ("", 600),
            // Server-controlled garbage must not crash (a lone "=" once indexed an empty split).
            ("=", 600), ("max-age=60,=", 60), ("==,max-age=90", 90), (",,,", 600), ("max-age=", 600), ("max-age=1e999", 86_400),
        ] as [(String?, TimeInterval)])
    func cacheControlParsing(header: String?, ttl: TimeInterval) {
        #expect(JWKSCache.ttl(from: header, options: JWKSCache.Options()) == ttl)
    }

    @Test func hostileCacheControlFromTheServerIsSurvived() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey], cacheControl: "=")
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.verify(JWT.sign(Self.claims, key: signer), options: Self.options(clock))
        #expect(await server.fetches == 1)
    }

    @Test func shortMaxAgeIsClampedToTheMinimum() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey], cacheControl: "max-age=1")
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        clock.advance(by: 29)
        _ = try await cache.keySet()
        #expect(await server.fetches == 1)
        clock.advance(by: 1)
        _ = try await cache.keySet()
        #expect(await server.fetches == 2)
    }

    @Test func staleSetIsServedWhileTheFetcherFails() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        let token = try JWT.sign(Self.claims, key: signer)
        _ = try await cache.verify(token, options: Self.options(clock))
        await server.setFailing(true)
        clock.advance(by: 3600)
        // Expired, the refresh fails, and the last good set keeps verifying.
        _ = try await cache.verify(token, options: Self.options(clock))
        #expect(try await cache.keySet().contains(keyID: "k1"))
        let attempts = await server.fetches
        #expect(attempts >= 2, "a refresh was attempted")
        // A body that is not a JWKS is a failed refresh too.
        await server.setFailing(false)
        await server.setBody("<html>502 Bad Gateway</html>")
        _ = try await cache.verify(token, options: Self.options(clock))
        // Recovery: the next good response is used and cached again.
        await server.setBody(nil)
        _ = try await cache.verify(token, options: Self.options(clock))
        let recovered = await server.fetches
        _ = try await cache.verify(token, options: Self.options(clock))
        #expect(await server.fetches == recovered)
    }

    @Test func unknownKidRefetchFailingKeepsTheOldKeys() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        await server.setFailing(true)
        await expectJWTError(.keyNotFound) { try await cache.verify(JWT.sign(Self.claims, key: Self.key("k2")), options: Self.options(clock)) }
        #expect(await server.fetches == 2)
        _ = try await cache.verify(JWT.sign(Self.claims, key: signer), options: Self.options(clock))
    }

    @Test func noSetAndAFailingFetcherThrows() async throws {
        let server = CountingJWKSServer(keys: [])
        await server.setFailing(true)
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        await #expect(throws: CountingJWKSServer.Down.self) { try await cache.keySet() }
        let token = try JWT.sign(Self.claims, key: Self.key("k1"))
        await #expect(throws: CountingJWKSServer.Down.self) { try await cache.verify(token, options: Self.options(clock)) }
        // Within the retry-after-failure window the failing server is not asked again.
        #expect(await server.fetches == 1)
        // An invalid document with no previous set surfaces as an invalid key set.
        await server.setFailing(false)
        await server.setBody("{}")
        clock.advance(by: 10)
        await expectJWTError(.invalidKey) { try await cache.keySet() }
        #expect(await server.fetches == 2)
    }

    @Test func aFailingServerIsNotAskedOnEveryVerification() async throws {
        let signer = try Self.key("k1")
        let server = CountingJWKSServer(keys: [signer.publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        await server.setFailing(true)
        clock.advance(by: 700)  // past the default 600 s freshness
        let token = try JWT.sign(Self.claims, key: signer)
        for _ in 0..<100 { _ = try await cache.verify(token, options: Self.options(clock)) }
        // One failed attempt, then the stale set is served without asking again.
        #expect(await server.fetches == 2)
        clock.advance(by: 10)
        _ = try await cache.verify(token, options: Self.options(clock))
        #expect(await server.fetches == 3)
    }

    @Test func invalidateForcesARefetch() async throws {
        let server = CountingJWKSServer(keys: [try Self.key("k1").publicKey])
        let clock = TestClock()
        let cache = Self.make(server, clock: clock)
        _ = try await cache.keySet()
        cache.invalidate()
        _ = try await cache.keySet()
        #expect(await server.fetches == 2)
    }

    @Test func verifyJWSAndClaimsThroughTheCache() async throws {
        let signer = try Self.key("k1", .edDSA)
        let server = CountingJWKSServer(keys: [signer.publicKey])
        let clock = TestClock(Date(timeIntervalSince1970: rfcExpiry))
        let cache = Self.make(server, clock: clock)
        let jws = try await cache.verifyJWS(JWS.sign(payload: [0xFF, 0x00], key: signer))
        #expect(jws.payload == [0xFF, 0x00])
        // Claims are validated on the cache's path too, with the caller's clock.
        let expiring = try JWT.sign(["exp": .number(rfcExpiry + 10)], key: signer)
        _ = try await cache.verify(expiring, options: JWTValidationOptions(leeway: 0, now: clock.function))
        clock.advance(by: 10)
        await expectJWTError(.expired) { try await cache.verify(expiring, options: JWTValidationOptions(leeway: 0, now: clock.function)) }
        // And the parsing limits.
        await expectJWTError(.malformed) { try await cache.verify("not.a.token!", options: Self.options(clock)) }
        #expect(await server.fetches == 1)
    }
}
