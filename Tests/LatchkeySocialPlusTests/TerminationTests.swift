import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus
import Testing

/// What ends a social.plus session, and what does not: a global ban (`400312`, the
/// `isGlobalBanned` flag), a deleted user (`isDeleted`), `400100` from the session
/// endpoint — and never a `400100` from any other endpoint, nor the refusal of a token a
/// renewal had already replaced.
@Suite struct TerminationTests {
    @Test func aBannedUserCannotLogIn() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            try await harness.client.start()
            let error = await authError { try await harness.login() }
            #expect(error?.code == .terminated)
            #expect(error?.terminationReason == .globalBan)
            #expect(error?.providerCode == "400312")
            #expect(error?.httpStatus == 403)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func flagsInTheLoginAnswerEndTheLogin() async throws {
        try await SocialPlusHarness.run(reportsFlags: true) { harness in
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            try await harness.emulator.control.deleteUser("bob", provider: .socialPlus)
            try await harness.client.start()
            let banned = await authError { try await harness.login() }
            #expect(banned?.terminationReason == .globalBan)
            let deleted = await authError { try await harness.login("bob") }
            #expect(deleted?.terminationReason == .userDeleted)
            #expect(harness.client.state == .notLoggedIn)
            #expect(harness.client.currentUser == nil)
        }
    }

    @Test func aBanFoundAtRenewalTerminatesTheSession() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            let states = StateRecorder(harness.client)
            await settle("subscribed") { states.all == [.notLoggedIn] }
            try await harness.login()
            await harness.clock.waitForSleepers(2)
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            await harness.advance(by: 2640)
            await settle("terminated") { harness.client.state == .terminated(.globalBan) }
            await settle("published") { states.all.last == .terminated(.globalBan) }
            #expect(states.all == [.notLoggedIn, .establishing, .established, .terminated(.globalBan)])
            #expect(harness.client.currentUser == nil)
            #expect(await harness.client.endError?.providerCode == "400312")
            #expect(try await harness.store.string("session") == nil)
            // Only logout leads out.
            let again = await authError { try await harness.login() }
            #expect(again?.code == .invalidState)
            try await harness.client.logout()
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test(arguments: [(false, TerminationReason.unauthorized), (true, TerminationReason.userDeleted)])
    func aDeletionFoundAtRenewalTerminatesTheSession(reportsFlags: Bool, reason: TerminationReason) async throws {
        try await SocialPlusHarness.run(reportsFlags: reportsFlags) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(2)
            try await harness.emulator.control.deleteUser("alice", provider: .socialPlus)
            await harness.advance(by: 2640)
            await settle("terminated") { harness.client.state == .terminated(reason) }
        }
    }

    @Test func aBanFoundByTheHeartbeatTerminatesTheSession() async throws {
        try await SocialPlusHarness.run(options: SessionOptions(heartbeatInterval: .seconds(180))) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(3)
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            await harness.advance(by: 180)
            await settle("terminated") { harness.client.state == .terminated(.globalBan) }
        }
    }

    @Test func aDeletionFoundByTheHeartbeatTerminatesTheSession() async throws {
        try await SocialPlusHarness.run(reportsFlags: true, options: SessionOptions(heartbeatInterval: .seconds(180))) { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(3)
            try await harness.emulator.control.deleteUser("alice", provider: .socialPlus)
            await harness.advance(by: 180)
            // 401 to the check → renew once → the login answer says deleted.
            await settle("terminated") { harness.client.state == .terminated(.userDeleted) }
            #expect(await harness.logins() == 2)
        }
    }

    @Test func aBanAnsweredToAnAppRequestEndsTheSessionAtOnce() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            let error = await authError { _ = try await harness.client.send(harness.userRequest("bob")) }
            #expect(error?.terminationReason == .globalBan)
            #expect(harness.client.state == .terminated(.globalBan))
        }
    }

    @Test(arguments: [401, 403])
    func code400100OnAnotherEndpointEndsNothing(status: Int) async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.emulator.control.inject(
                EmulatorFault(
                    route: SocialPlusHarness.userRoute, kind: .status(status, error: "400100"),
                    trigger: .next(2)))
            do {
                let response = try await harness.client.send(harness.userRequest("bob"))
                #expect(response.status == status)
            } catch let error as AuthError {
                // A 401 renews once and retries; a second 401 is the app server's answer.
                #expect(error.code == .unauthorizedAfterRenewal)
            }
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            await harness.emulator.control.clearFaults()
            let response = try await harness.client.send(harness.userRequest("bob"))
            #expect(response.status == 200)
        }
    }

    /// The fault soak's wrongful logout (seed 8): the heartbeat's check of the old token
    /// meets a 503 and waits on the clock to send it again; meanwhile a renewal replaces
    /// the token, and then every token of the user expires at the provider. The old
    /// token's 401 says nothing about the new one, which has never been checked: it gets
    /// its own renewal (a third login) and check, and the session lives on. Before the fix,
    /// the new token's 401 counted as the refusal after the renewal, and the user was
    /// logged out without any login after it.
    @Test func aRefusalOfATokenARenewalHadAlreadyReplacedEndsNothing() async throws {
        let options = SessionOptions(heartbeatInterval: .seconds(180))
        let retries = RetryPolicy(maxAttempts: 2, baseDelay: .seconds(1), jitter: 0)
        try await SocialPlusHarness.run(options: options, retries: retries) { harness in
            let control = harness.emulator.control
            try await harness.client.start()
            try await harness.login()
            let first = try await harness.client.accessToken()
            await harness.clock.waitForSleepers(3)
            await control.inject(EmulatorFault(route: SocialPlusHarness.userRoute, kind: .status(503), trigger: .next(1)))
            await harness.advance(by: 180)
            await settle("the check waits to retry") {
                await control.count(SocialPlusHarness.userRoute) == 1
                    && harness.clock.nextDeadline == SocialPlusHarness.start.addingTimeInterval(181)
            }
            try await harness.client.renew()
            let second = try await harness.client.accessToken()
            #expect(second != first)
            #expect(try await control.expireSessions(of: "alice", provider: .socialPlus) == 2)

            await harness.advance(by: 1)
            // 503, then 401 for the old token, 401 for the renewed one, 200 after a new login;
            // then the heartbeat sleeps until its next round.
            await settle("checked") {
                harness.client.state != .established
                    || harness.clock.nextDeadline == SocialPlusHarness.start.addingTimeInterval(361)
            }
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            #expect(await harness.logins() == 3)
            #expect(await control.count(SocialPlusHarness.userRoute) == 4)
            let third = try await harness.client.accessToken()
            #expect(third != first && third != second)
            #expect(!harness.logs.all.contains { $0.contains("refused the session again") })
            let response = try await harness.client.send(harness.userRequest("bob"))
            #expect(response.status == 200)
        }
    }

    /// The fault soak's other wrongful logout (seed 17): the user check refuses the token,
    /// the renewal (a login at the session endpoint) succeeds, and the check refuses the new
    /// token too (its tokens expired again while the check was retried). The user check is
    /// not a session endpoint: the session is kept and checked again later.
    @Test func aRenewedTokenTheUserCheckRefusesTooEndsNothing() async throws {
        let options = SessionOptions(heartbeatInterval: .seconds(180))
        try await SocialPlusHarness.run(options: options) { harness in
            let control = harness.emulator.control
            try await harness.client.start()
            try await harness.login()
            await harness.clock.waitForSleepers(3)
            await control.inject(EmulatorFault(route: SocialPlusHarness.userRoute, kind: .status(401, error: "400100"), trigger: .next(2)))
            await harness.advance(by: 180)
            await settle("refused twice") { harness.logs.all.contains { $0.contains("refused the renewed access token too") } }
            #expect(harness.client.state == .established)
            #expect(harness.client.currentUser?.id == "alice")
            #expect(await harness.logins() == 2)
            #expect(await control.count(SocialPlusHarness.userRoute) == 2)
            #expect(!harness.logs.all.contains { $0.contains("refused the session again") })
            let response = try await harness.client.send(harness.userRequest("bob"))
            #expect(response.status == 200)
        }
    }

    @Test func aBanAtRestoreLandsInTerminated() async throws {
        try await SocialPlusHarness.run { harness in
            try await harness.client.start()
            try await harness.login()
            await harness.client.shutdown()
            try await harness.emulator.control.banUser("alice", provider: .socialPlus)
            let restarted = try harness.restarted()
            try await restarted.start()
            #expect(restarted.state == .terminated(.globalBan))
            await restarted.shutdown()
        }
    }
}
