import Foundation
import Latchkey
import Testing

/// A server's absolute times become a lifetime started at local receipt: only their
/// difference is used, clamped, and no number a server can send traps or overflows.
@Suite struct ServerLifetimeTests {
    static let server = Date(timeIntervalSince1970: 1_800_000_000)
    static let received = Date(timeIntervalSince1970: 1_800_000_600)

    @Test func theDifferenceStartsAtReceipt() {
        let times = ServerLifetime.localTimes(receivedAt: Self.received, issuedAt: Self.server, expiresAt: Self.server.addingTimeInterval(300))
        #expect(times.issuedAt == Self.received)
        #expect(times.expiresAt == Self.received.addingTimeInterval(300))
    }

    @Test func withoutBothTimesTheFallbackIsTheLifetimeElseTheStatedExpiryStays() {
        let expiry = Self.server.addingTimeInterval(300)
        #expect(
            ServerLifetime.localTimes(receivedAt: Self.received, issuedAt: nil, expiresAt: expiry, fallback: 120).expiresAt
                == Self.received.addingTimeInterval(120))
        #expect(ServerLifetime.localTimes(receivedAt: Self.received, issuedAt: nil, expiresAt: expiry).expiresAt == expiry)
        #expect(ServerLifetime.localTimes(receivedAt: Self.received, issuedAt: Self.server, expiresAt: nil).expiresAt == nil)
    }

    @Test(
        arguments: [
            (-1e308, 1e308, ServerLifetime.maximum),
            (0, .infinity, ServerLifetime.maximum),
            (1_800_000_000, 1_799_999_000, 0),
            (1_800_000_000, 1_800_000_000 + 1e12, ServerLifetime.maximum),
        ] as [(Double, Double, Double)])
    func outlandishTimesAreClamped(issued: Double, expires: Double, lifetime: Double) {
        let found = ServerLifetime(from: Date(timeIntervalSince1970: issued), to: Date(timeIntervalSince1970: expires))
        #expect(found?.seconds == lifetime)
    }

    @Test func aDifferenceThatIsNotANumberIsNoLifetime() {
        #expect(ServerLifetime(from: Date(timeIntervalSince1970: .infinity), to: Date(timeIntervalSince1970: .infinity)) == nil)
        #expect(ServerLifetime(seconds: .nan) == nil)
        #expect(
            ServerLifetime.localTimes(
                receivedAt: Self.received, issuedAt: Date(timeIntervalSince1970: .infinity),
                expiresAt: Date(timeIntervalSince1970: .infinity), fallback: 60
            ).expiresAt
                == Self.received.addingTimeInterval(60))
    }
}
