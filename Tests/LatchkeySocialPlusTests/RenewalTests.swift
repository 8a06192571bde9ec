import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus
import Synchronization
import Testing

/// Renewal in simulated time, over real HTTP: the session handler is asked at
/// `issuedAt + 0.8 × (expiresAt − issuedAt − 5 min)`; "unable" asks again 10 minutes
/// later; the token counts as expired at `expiresAt − 5 min`; a renewal logs in again.
/// With a 3,600 s token: renewal at 2,640 s, expiry at 3,300 s.
@Suite struct RenewalTests {
    private static func dependencies(_ handler: any SocialPlusSessionHandler) -> ProviderDependencies {
        var dependencies = ProviderDependencies()
        dependencies[SocialPlusSessionHandlerKey.self] = handler
        return dependencies
    }

    @Test func theHandlerIsAskedAtTheEightyPercentPointAndTheSessionRenews() async throws {
        let handler = ScriptedSessionHandler()
        try await SocialPlusHarness.run(dependencies: Self.dependencies(handler)) { harness in
            try await harness.client.start()
            try await harness.login()
            let first = try await harness.client.accessToken()
            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2639)
            #expect(handler.calls == 0)
            #expect(await harness.logins() == 1)
            await harness.advance(by: 1)
            await settle("renewed") {
                let token = try? await harness.client.accessToken()
                return await harness.logins() == 2 && token != first
            }
            #expect(handler.calls == 1)
            #expect(harness.client.state == .established)
            let session = try #require(harness.client.currentSession)
            #expect(session.startedAt == SocialPlusHarness.start.addingTimeInterval(2640))
            // A renewal without a token sends none, and the same device.
            let bodies = harness.loginBodies()
            #expect(bodies[1]["authToken"] == nil)
            #expect(bodies[1]["displayName"] == nil)
            #expect(bodies[1]["deviceId"] == bodies[0]["deviceId"])
        }
    }

    @Test func secureModeRenewsWithTheHandlersAuthToken() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let minted = Mutex<[String]>([])
            try harness.provider.register(
                sessionHandler: ClosureSessionHandler { userID in
                    let token = try await harness.mintAuthToken(userID)
                    minted.withLock { $0.append(token) }
                    return .renewWithAuthToken(token)
                })
            try await harness.client.start()
            try await harness.login(authToken: try await harness.mintAuthToken())
            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2640)
            await settle("renewed") { await harness.logins() == 2 && harness.client.currentSession?.startedAt != SocialPlusHarness.start }
            #expect(harness.client.state == .established)
            let token = try #require(minted.withLock { $0.first })
            #expect(harness.loginBodies().last?["authToken"]?.stringValue == token)
            #expect(!harness.logs.all.joined().contains(token))
        }
    }

    @Test func anAuthTokenSessionWithoutASessionHandlerIsUnableNotLoggedInWithoutAToken() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try await harness.client.start()
            try await harness.login(authToken: try await harness.mintAuthToken())
            await harness.client.shutdown()
            // The mark is in the stored record: a restarted client knows it too.
            let restarted = try harness.restarted()
            try await restarted.start()
            let error = await authError { try await restarted.renew() }
            #expect(error?.code == .transient)
            #expect(error?.retryAfter == .seconds(600))
            #expect(error?.message.contains("no session handler") == true)
            #expect(restarted.state == .established)
            #expect(await harness.logins() == 1)
            await restarted.shutdown()
        }
    }

    @Test func aTokenlessRenewalOfAnAuthTokenSessionIsWhatSecureModeTerminates() async throws {
        // What the renewal above no longer sends: the network ends the session for it.
        try await SocialPlusHarness.run(secure: true) { harness in
            try harness.provider.register(sessionHandler: ScriptedSessionHandler([.renew]))
            try await harness.client.start()
            try await harness.login(authToken: try await harness.mintAuthToken())
            let error = await authError { try await harness.client.renew() }
            #expect(error?.terminationReason == .unauthorized)
            #expect(harness.client.state == .terminated(.unauthorized))
        }
    }

    @Test func unableAsksAgainTenMinutesLaterAndTheTokenExpiresMeanwhile() async throws {
        let handler = ScriptedSessionHandler([.unable, .unable], fallback: .renew)
        try await SocialPlusHarness.run(dependencies: Self.dependencies(handler)) { harness in
            try await harness.client.start()
            let states = StateRecorder(harness.client)
            await settle("subscribed") { states.all == [.notLoggedIn] }
            try await harness.login()
            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2640)
            await settle("asked once") { handler.calls == 1 }
            await harness.clock.waitForSleepers(2)
            #expect(harness.client.state == .established)
            #expect(harness.clock.nextDeadline == SocialPlusHarness.start.addingTimeInterval(3240))

            await harness.advance(by: 599)
            #expect(handler.calls == 1)
            await harness.advance(by: 1)
            await settle("asked twice") { handler.calls == 2 }
            await harness.clock.waitForSleepers(2)
            #expect(await harness.logins() == 1)

            // expiresAt − 5 min: the core's expiry timer moves the state.
            await harness.advance(by: 59)
            #expect(harness.client.state == .established)
            await harness.advance(by: 1)
            await settle("expired") { harness.client.state == .tokenExpired }
            #expect(harness.client.currentUser?.id == "alice")

            await harness.advance(by: 540)
            await settle("renewed") { harness.client.state == .established }
            #expect(handler.calls == 3)
            #expect(await harness.logins() == 2)
            await settle("published") { states.all.last == .established }
            #expect(states.all == [.notLoggedIn, .establishing, .established, .tokenExpired, .established])
        }
    }

    @Test func theCallbackFormAnswersOnceAndASecondAnswerIsIgnored() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            try harness.provider.register(
                sessionHandler: SocialPlusCallbackSessionHandler(logger: harness.logs.logger) { renewal in
                    Task {
                        let token = try await harness.mintAuthToken(renewal.userID)
                        renewal.renewWithAuthToken(token)
                        renewal.unableToRetrieveAuthToken()
                        renewal.renew()
                    }
                })
            try await harness.client.start()
            try await harness.login(authToken: try await harness.mintAuthToken())
            try await harness.client.renew()
            #expect(await harness.logins() == 2)
            #expect(harness.client.state == .established)
            await settle("ignored twice") { harness.logs.all.filter { $0.contains("the answer is ignored") }.count == 2 }
        }
    }

    @Test func anUnansweredCallbackCountsAsUnable() async throws {
        try await SocialPlusHarness.run { harness in
            try harness.provider.register(sessionHandler: SocialPlusCallbackSessionHandler(answerTimeout: .milliseconds(50)) { _ in })
            try await harness.client.start()
            try await harness.login()
            let error = await authError { try await harness.client.renew() }
            #expect(error?.code == .transient)
            #expect(error?.retryAfter == .seconds(600))
            #expect(harness.client.state == .established)
            #expect(await harness.logins() == 1)
        }
    }

    @Test func aHandlerThatCallsTheClientWhileRenewingCompletes() async throws {
        let sent = Counter()
        try await SocialPlusHarness.run { harness in
            try harness.provider.register(
                sessionHandler: ClosureSessionHandler { _ in
                    let response = try await harness.client.send(harness.userRequest("bob"))
                    #expect(response.status == 200)
                    _ = try await harness.client.accessToken()
                    sent.increment()
                    return .renew
                })
            try await harness.client.start()
            try await harness.login()
            // On demand…
            try await harness.client.renew()
            #expect(sent.count == 1)
            #expect(await harness.logins() == 2)
            // …and on schedule.
            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 2640)
            await settle("renewed on schedule") { await harness.logins() == 3 }
            #expect(sent.count == 2)
            #expect(harness.client.state == .established)
        }
    }

    @Test func aThousandConcurrentSendsOnAnExpiredTokenShareOneRenewal() async throws {
        let handler = ScriptedSessionHandler()
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        try await SocialPlusHarness.run(options: options, dependencies: Self.dependencies(handler), timeout: .seconds(120)) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(1)
            await harness.advance(by: 3300)
            await settle("expired") { harness.client.state == .tokenExpired }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<1000 {
                    group.addTask { try await harness.client.send(harness.userRequest(index.isMultiple(of: 2) ? "alice" : "bob")).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 1000)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(await harness.logins() == 2)
            #expect(handler.calls == 1)
            #expect(harness.client.state == .established)
        }
    }

    @Test(arguments: [
        EmulatorFault.Kind.status(500), .status(503), .status(429), .status(400), .status(404), .malformedBody, .dropConnection,
        SocialPlusHarness.slowAnswer, .status(401, error: "400300"),
    ])
    func aFailedRenewalKeepsTheSessionAndIsRetried(fault: EmulatorFault.Kind) async throws {
        try await SocialPlusHarness.run(timeout: SocialPlusHarness.timeout(for: fault)) { harness in
            try await harness.client.start()
            try await harness.login()
            let first = try await harness.client.accessToken()
            await harness.clock.waitForSleepers(2)
            await harness.emulator.control.inject(EmulatorFault(route: SocialPlusHarness.loginRoute, kind: fault))
            await harness.advance(by: 2640)
            await settle("renewal failed") { harness.logs.all.contains { $0.contains("renewal failed; keeping the session") } }
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            #expect(try await harness.client.accessToken() == first)
            await harness.clock.waitForSleepers(2)
            await harness.advance(by: 10)
            await settle("renewed on retry") { (try? await harness.client.accessToken()).map { $0 != first } ?? false }
            #expect(harness.client.state == .established)
        }
    }

    @Test func theTokenExpiresFiveMinutesEarlyAndARenewalBringsItBack() async throws {
        let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)
        try await SocialPlusHarness.run(options: options) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(1)
            await harness.advance(by: 3299)
            #expect(harness.client.state == .established)
            await harness.advance(by: 1)
            await settle("expired") { harness.client.state == .tokenExpired }
            _ = try await harness.client.accessToken()
            #expect(harness.client.state == .established)
            #expect(await harness.logins() == 2)
        }
    }
}
