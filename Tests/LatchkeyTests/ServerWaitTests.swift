import Foundation
import Latchkey
import Synchronization
import Testing

/// A server's absolute times (`x-ratelimit-reset`, an HTTP-date `Retry-After`) become a
/// wait only against the same answer's `Date`, never against the local clock; without a
/// `Date` there is no wait (the caller's own back-off applies); nothing traps.
@Suite struct ServerWaitTests {
    /// 1,800,000,000 s after 1970, as a server writes it.
    static let serverNow = "Fri, 15 Jan 2027 08:00:00 GMT"

    private func wait(_ headers: TransportHeaders) -> Duration? {
        TransportResponse(status: 429, headers: headers).retryAfter
    }

    @Test func aResetIsMeasuredFromTheAnswersDate() {
        #expect(wait(["Date": Self.serverNow, "x-ratelimit-reset": "1800000042"]) == .seconds(42))
        #expect(wait(["date": Self.serverNow, "X-RateLimit-Reset": " 1800000042 "]) == .seconds(42), "names in any case, values trimmed")
        #expect(TransportResponse(status: 429, headers: ["Date": Self.serverNow]).date == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func anHTTPDateRetryAfterIsMeasuredFromTheAnswersDate() {
        #expect(wait(["Date": Self.serverNow, "Retry-After": "Fri, 15 Jan 2027 08:03:00 GMT"]) == .seconds(180))
        #expect(wait(["Date": "Sun, 06 Nov 1994 08:48:37 GMT", "Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]) == .seconds(60))
    }

    @Test func aDelayIsTakenAsItIs() {
        #expect(wait(["Retry-After": "7"]) == .seconds(7))
        #expect(wait(["Retry-After": "0"]) == .zero)
        #expect(wait(["Retry-After": "7", "Date": Self.serverNow, "x-ratelimit-reset": "1800000042"]) == .seconds(7), "Retry-After wins")
    }

    @Test func withoutADateAnAbsoluteTimeGivesNoWait() {
        #expect(wait(["x-ratelimit-reset": "1800000042"]) == nil)
        #expect(wait(["Retry-After": "Fri, 15 Jan 2027 08:03:00 GMT"]) == nil)
        #expect(wait([:]) == nil)
    }

    @Test(arguments: [
        "Friday", "", "Fri, 15 Jan 2027 08:00:00 UTC", "Fri, 15 Foo 2027 08:00:00 GMT", "Fri, 99 Jan 2027 08:00:00 GMT",
        "Fri, 15 Jan 2027 25:00:00 GMT", "Fri, 15 Jan 99999999999999999999 08:00:00 GMT",
        "Fri, 15 Jan 9223372036854775807 08:00:00 GMT", "Fri, 15 Jan 2027 08:00 GMT", "1800000000",
    ])
    func aGarbageDateGivesNoWait(date: String) {
        #expect(TransportResponse(status: 429, headers: ["Date": date]).date == nil)
        #expect(wait(["Date": date, "x-ratelimit-reset": "1800000042"]) == nil)
        #expect(wait(["Date": date, "Retry-After": "Fri, 15 Jan 2027 08:03:00 GMT"]) == nil)
    }

    @Test func aResetBeforeTheDateIsNoWait() {
        #expect(wait(["Date": Self.serverNow, "x-ratelimit-reset": "1799999000"]) == .zero)
        #expect(wait(["Date": Self.serverNow, "Retry-After": "Fri, 15 Jan 2027 07:50:00 GMT"]) == .zero)
    }

    @Test func hugeWaitsAreCappedToADay() {
        #expect(wait(["Date": Self.serverNow, "x-ratelimit-reset": "253402300799"]) == .seconds(86_400))
        #expect(wait(["Date": Self.serverNow, "Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"]) == .seconds(86_400))
        #expect(wait(["Retry-After": "99999999999999999999999999999999999999"]) == .seconds(86_400))
        #expect(wait(["Retry-After": String(repeating: "9", count: 400)]) == .seconds(86_400))
        #expect(wait(["Date": "Sun, 06 Nov 1994 08:48:37 GMT", "x-ratelimit-reset": "1800000000"]) == .seconds(86_400))
    }

    @Test(arguments: ["soon", "nan", "inf", "-inf", "1e308", "-5", "0", "99999999999999999999999", "0x10", "12abc", "", " "])
    func aResetThatIsNotAPlausibleTimeGivesNoWait(reset: String) {
        let response = TransportResponse(status: 429, headers: ["Date": Self.serverNow, "x-ratelimit-reset": reset])
        #expect(response.rateLimitReset == nil)
        #expect(response.retryAfter == nil)
    }

    @Test(arguments: ["-5", "1.5", "soon", "+3", "Fri, 15 Jan 2027 08:03:00 UTC"])
    func aRetryAfterThatCannotBeReadGivesNoWait(value: String) {
        #expect(wait(["Date": Self.serverNow, "Retry-After": value, "x-ratelimit-reset": "1800000042"]) == nil)
    }

    @Test func aWaitStartsAtLocalReceipt() throws {
        let wait = try #require(ServerWait(until: Date(timeIntervalSince1970: 1_800_000_042), serverDate: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(wait.seconds == 42)
        let received = Date(timeIntervalSince1970: 1_800_000_600)
        #expect(wait.end(startingAt: received) == received.addingTimeInterval(42))
        #expect(ServerWait(seconds: .nan) == nil)
        #expect(ServerWait(seconds: -.infinity)?.seconds == 0)
        #expect(ServerWait(seconds: .infinity)?.seconds == ServerWait.maximum)
        #expect(ServerWait(until: nil, serverDate: Date()) == nil)
        #expect(ServerWait(until: Date(), serverDate: nil) == nil)
    }

    /// Over a real socket: a 429 whose reset is 5 s after its `Date` is retried 5 s later
    /// on the local clock, whether that clock is 10 minutes ahead of the server's or behind.
    @Test(arguments: [600.0, -600.0])
    func theRetryingTransportWaitsTheServersWindowWhateverTheLocalClock(skew: TimeInterval) async throws {
        let server = try LoopbackServer([
            LoopbackServer.status(
                429, "Too Many Requests",
                headers: "Date: \(Self.serverNow)\r\nx-ratelimit-reset: 1800000005\r\n")
        ])
        defer { server.stop() }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000 + skew))
        // A cap far above the window, so a wait taken from the wrong clock shows as one.
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(3600))
        let transport = RetryingTransport(URLSessionTransport(), policy: policy, clock: clock)
        let task = Task { try await transport.send(TransportRequest(url: server.url, timeout: .seconds(5))) }
        await clock.waitForSleepers(1)
        let wait = try #require(clock.nextDeadline).timeIntervalSince(clock.now)
        #expect(wait == 5)
        // Whatever it chose, let it finish: a wrong wait fails above, it does not hang here.
        clock.advance(by: .seconds(max(wait, 0)))
        #expect(try await task.value.status == 200)
        #expect(server.connections.load(ordering: .relaxed) == 2)
    }
}
