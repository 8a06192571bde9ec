import Foundation
import Synchronization
import Testing

@testable import LatchkeyJWT

/// Each thread scans a payload against the claim names of its last one; every token must
/// read exactly as it would without that — its own claims, and a bad one refused.
@Suite struct ClaimsShapeCacheTests {
    static let header = #"{"alg":"HS256","typ":"JWT"}"#
    static let shapes = [
        #"{"iss":"https://a.example/","sub":"user-1","aud":"app","exp":2000000001,"iat":1700000001}"#,
        #"{"sub":"user-2","iss":"https://b.example/","exp":2000000002,"aud":["app","api"],"iat":1700000002,"nonce":"n"}"#,
        #"{"iss":"https://c.example/","sub":"user-3","aud":"app","exp":2000000003,"iat":1700000003,"jti":"j3"}"#,
        #"{"iss":"https://d.example/","sub":"user-4"}"#,
    ]

    static func expectOwnClaims(_ jwt: JWT, _ index: Int) {
        #expect(jwt.claims.subject == "user-\(index + 1)")
        let host = ["a", "b", "c", "d"][index]
        #expect(jwt.claims.issuer == "https://\(host).example/")
        if index < 3 {
            #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: Double(2_000_000_001 + index)))
        } else {
            #expect(jwt.claims.expiresAt == nil)
        }
        #expect(jwt.claims.jwtID == (index == 2 ? "j3" : nil))
        #expect(jwt.claims.audience == (index == 1 ? ["app", "api"] : index == 3 ? nil : ["app"]))
    }

    @Test func tokensOfChangingShapesReadTheirOwnClaims() throws {
        let tokens = try Self.shapes.map { try HeaderCacheTests.token(Self.header, $0, key: HeaderCacheTests.key) }
        for round in 0..<4 {
            for index in tokens.indices {
                // Each shape twice in a row (the second against its own names), in a new order each round.
                let shifted = (index + round) % tokens.count
                Self.expectOwnClaims(try JWT.decode(tokens[shifted]), shifted)
                Self.expectOwnClaims(try JWT.verify(tokens[shifted], keys: HeaderCacheTests.key), shifted)
            }
        }
    }

    @Test func aDuplicateClaimAfterTheRecordedNamesIsRefused() throws {
        let good = try HeaderCacheTests.token(Self.header, Self.shapes[0], key: HeaderCacheTests.key)
        let duplicated = try HeaderCacheTests.token(Self.header, String(Self.shapes[0].dropLast()) + #","sub":"other"}"#, key: HeaderCacheTests.key)
        let prefix = try HeaderCacheTests.token(Self.header, #"{"iss":"https://a.example/","sub":"user-1"}"#, key: HeaderCacheTests.key)
        for _ in 0..<2 {
            Self.expectOwnClaims(try JWT.decode(good), 0)
            expectJWTError(.malformed) { try JWT.decode(duplicated) }
            #expect(try JWT.decode(prefix).claims.subject == "user-1")
        }
    }

    @Test func threadsKeepTheirOwnShapes() throws {
        let tokens = try Self.shapes.map { try HeaderCacheTests.token(Self.header, $0, key: HeaderCacheTests.key) }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<500 {
                let index = (thread + round / 3) % tokens.count
                guard let jwt = try? JWT.decode(tokens[index]), jwt.claims.subject == "user-\(index + 1)",
                    jwt.claims.issuer == "https://\(["a", "b", "c", "d"][index]).example/"
                else {
                    failures.add(1, ordering: .relaxed)
                    continue
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
