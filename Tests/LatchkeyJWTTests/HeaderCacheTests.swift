import Foundation
import Synchronization
import Testing

@testable import LatchkeyJWT

/// Each thread keeps the last header it read; a token must read exactly as it would
/// without that: the same members for the same bytes, its own for any other bytes, and
/// a bad header refused every time.
@Suite struct HeaderCacheTests {
    static func token(_ header: String, _ payload: String = #"{"sub":"a"}"#, key: JWTKey) throws -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return signingInput + "." + Base64URL.encode(try key.sign(.hs256, signingInput: Array(signingInput.utf8)))
    }

    static let key: JWTKey = {
        do { return try JWTKey.hmac(Array("a-secret-of-at-least-thirty-two-bytes!!".utf8), algorithm: .hs256) } catch { fatalError("\(error)") }
    }()

    @Test func headersOfTheSameLengthAreNotConfused() throws {
        // One byte apart, alternately, on one thread: each reads its own kid and type.
        let first = try Self.token(#"{"alg":"HS256","kid":"k1","typ":"JWT"}"#, key: Self.key)
        let second = try Self.token(#"{"alg":"HS256","kid":"k2","typ":"JWS"}"#, key: Self.key)
        for _ in 0..<3 {
            let one = try JWT.decode(first), two = try JWT.decode(second)
            #expect(one.header.keyID == "k1" && one.header.type == "JWT")
            #expect(two.header.keyID == "k2" && two.header.type == "JWS")
        }
    }

    @Test func anUnknownAlgorithmReadsTheSameFromTheCache() throws {
        let token = try Self.token(#"{"alg":"HS257","kid":"k1"}"#, key: Self.key)
        for _ in 0..<2 {
            let jwt = try JWT.decode(token)
            #expect(jwt.header.algorithmName == "HS257")
            #expect(jwt.header.algorithm == nil)
            expectJWTError(.unsupportedAlgorithm) { try JWT.verify(token, keys: Self.key) }
        }
    }

    @Test func aBadHeaderIsRefusedEveryTimeEvenAfterAGoodOne() throws {
        let good = try Self.token(#"{"alg":"HS256","kid":"k1"}"#, key: Self.key)
        let noAlgorithm = try Self.token(#"{"alx":"HS256","kid":"k1"}"#, key: Self.key)
        let duplicate = try Self.token(#"{"alg":"HS256","alg":"none"}"#, key: Self.key)
        for _ in 0..<2 {
            #expect(try JWT.decode(good).header.keyID == "k1")
            expectJWTError(.malformed) { try JWT.decode(noAlgorithm) }
            expectJWTError(.malformed) { try JWT.decode(duplicate) }
        }
    }

    @Test func aHeaderPastTheCachedSizeIsReadEveryTime() throws {
        let kid = String(repeating: "k", count: HeaderCache.maxSegmentSize)
        let token = try Self.token(#"{"alg":"HS256","kid":"\#(kid)"}"#, key: Self.key)
        for _ in 0..<2 { #expect(try JWT.verify(token, keys: Self.key).header.keyID == kid) }
    }

    @Test func eachThreadReadsItsOwnTokens() throws {
        // Eight threads, each alternating two headers of its own; every read is checked.
        let tokens = try (0..<16).map { try Self.token(#"{"alg":"HS256","kid":"key-\#($0 % 10)\#($0 / 10)"}"#, key: Self.key) }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<500 {
                let index = 2 * thread + round % 2
                let kid = (try? JWT.verify(tokens[index], keys: Self.key))?.header.keyID
                if kid != "key-\(index % 10)\(index / 10)" { failures.wrappingAdd(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
