import Foundation
import Latchkey
import Testing

/// The change streams: replay, no consecutive duplicates, many subscribers, slow
/// subscribers, finish.
@Suite(.noSecretLeaks) struct StreamTests {
    @Test func aNewSubscriberGetsTheCurrentValueFirst() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        var states = harness.client.stateChanges.makeAsyncIterator()
        #expect(await states.next() == .established)
        var sessions = harness.client.sessionChanges.makeAsyncIterator()
        #expect(await sessions.next()?.value?.id == "session-1")
        var members = harness.client.memberChanges.makeAsyncIterator()
        #expect(await members.next() == .unavailable(.notProvided))
        var memberSessions = harness.client.memberSessionChanges.makeAsyncIterator()
        #expect(await memberSessions.next() == .unavailable(.notProvided))
        await harness.client.shutdown()
    }

    @Test func theStateStreamShowsTheLoginAndLogoutSequenceWithoutDuplicates() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.client.start()
        let collector = Task {
            var seen: [SessionState] = []
            for await state in harness.client.stateChanges { seen.append(state) }
            return seen
        }
        for _ in 0..<100 { await Task.yield() }
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        try await harness.client.renew()
        try await harness.client.renew()
        try await harness.client.logout()
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        await harness.client.shutdown()
        let seen = await collector.value
        for (a, b) in zip(seen, seen.dropFirst()) { #expect(a != b, "consecutive duplicates: \(seen)") }
        #expect(seen.last == .established)
        #expect(seen.count >= 1 && seen.count <= 6, "\(seen)")
    }

    @Test func manySubscribersEachGetEveryChange() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.client.start()
        let subscribers = (0..<100).map { _ in
            Task {
                var iterator = harness.client.userChanges.makeAsyncIterator()
                var seen: [String?] = []
                while let info = await iterator.next() {
                    seen.append(info.value?.id)
                    if info.value != nil { break }
                }
                return seen
            }
        }
        try await harness.client.login(ScriptedCredentials(user: "user-7", password: "correct horse"))
        for subscriber in subscribers {
            let seen = await subscriber.value
            // A subscriber that attached after the login sees only the user (replayed).
            #expect(seen == [nil, "user-7"] || seen.first == "user-7")
        }
        await harness.client.shutdown()
    }

    @Test func aSlowSubscriberNeverBlocksTheClientAndEndsOnTheLatestValue() async throws {
        let harness = try Harness(lifetime: 3600, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        // Subscribe, then don't read while the client renews 500 times.
        var slow = harness.client.sessionChanges.makeAsyncIterator()
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<500 {
            harness.clock.advance(by: .seconds(1))
            try await harness.client.renew()
            _ = try await harness.client.send(TransportRequest(url: URL(string: "https://api.example.com/")!))
        }
        #expect(clock.now - started < .seconds(60), "the client was not held up")
        #expect(harness.provider.counts.renew == 500)
        // The reader catches up: it gets at most the buffer, ending with the latest value.
        var last: ObjectInfo<Session>?
        var received = 0
        let latest = harness.client.currentSession
        while let next = await slow.next() {
            received += 1
            last = next
            if next.value == latest { break }
        }
        #expect(received <= 17)
        #expect(last?.value == latest)
        await harness.client.shutdown()
    }

    @Test func everyStreamFinishesOnShutdown() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        let readers = [
            Task {
                var n = 0
                for await _ in harness.client.stateChanges { n += 1 }
                return n
            },
            Task {
                var n = 0
                for await _ in harness.client.sessionChanges { n += 1 }
                return n
            },
            Task {
                var n = 0
                for await _ in harness.client.userChanges { n += 1 }
                return n
            },
            Task {
                var n = 0
                for await _ in harness.client.memberSessionChanges { n += 1 }
                return n
            },
            Task {
                var n = 0
                for await _ in harness.client.memberChanges { n += 1 }
                return n
            },
            Task {
                var n = 0
                for await _ in harness.client.organizationChanges { n += 1 }
                return n
            },
        ]
        for _ in 0..<100 { await Task.yield() }
        await harness.client.shutdown()
        for reader in readers { #expect(await reader.value >= 1) }
        // After shutdown a subscriber gets the last value and the end.
        var late = harness.client.stateChanges.makeAsyncIterator()
        #expect(await late.next() == .established)
        #expect(await late.next() == nil)
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == .cancelled)
    }
}
