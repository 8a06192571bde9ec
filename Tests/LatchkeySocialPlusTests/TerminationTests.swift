import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus
import Testing

/// What ends a social.plus session, and what does not: a global ban (`400312`, the
/// `isGlobalBanned` flag), a deleted user (`isDeleted`), `400100` from the session
/// endpoint — and never a `400100` from any other endpoint.
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
            await harness.emulator.control.inject(EmulatorFault(route: SocialPlusHarness.userRoute, kind: .status(status, error: "400100"),
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
