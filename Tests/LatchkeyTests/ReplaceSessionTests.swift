import Foundation
import Latchkey
import Testing

/// `replaceSession(with:)`: a login that keeps the current session until the new one is
/// saved, then revokes the one it replaced.
@Suite(.noSecretLeaks) struct ReplaceSessionTests {
    private static let options = SessionOptions(heartbeatInterval: nil, renewsProactively: false)

    @Test func aRefusedLoginKeepsTheSessionStoredAndServing() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        let token = try await harness.client.accessToken()
        let error = await authError {
            try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "wrong"))
        }
        #expect(error?.code == .unrecoverable)
        #expect(harness.client.state == .established)
        #expect(try await harness.storedRecord() == stored)
        #expect(try await harness.client.accessToken() == token)
        #expect(harness.client.currentUser?.id == "user-1")
        #expect(harness.provider.counts.revoke == 0)
        await harness.client.shutdown()
    }

    @Test(arguments: [ScriptedProvider.Behaviour.failTransport, .fail(AuthError.rateLimited(retryAfter: .seconds(5), "slow down"))])
    func aLoginThatCannotReachTheProviderKeepsTheSession(failure: ScriptedProvider.Behaviour) async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        harness.provider.script(login: [failure])
        let error = await authError {
            try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        }
        #expect(error?.isRetryable == true)
        #expect(harness.client.state == .established)
        #expect(try await harness.storedRecord() == stored)
        await harness.client.shutdown()
    }

    @Test func aSuccessfulLoginReplacesTheSessionAndRevokesTheOldOne() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "user-2")
        #expect(try await harness.storedRecord() != stored)
        #expect(harness.provider.counts.revoke == 1, "the replaced session was revoked")
        await harness.client.shutdown()
        let restarted = harness.restarted(options: Self.options)
        try await restarted.start(validating: false)
        #expect(restarted.currentUser?.id == "user-2")
        await restarted.shutdown()
    }

    @Test func aFailedRevocationOfTheReplacedSessionKeepsTheNewOne() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        harness.provider.script(revoke: [.failTransport])
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "user-2")
        #expect(harness.provider.counts.revoke == 1)
        await harness.client.shutdown()
    }

    @Test func withoutRevocationTheReplacedSessionIsLeftAlone() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"), revokingReplaced: false)
        #expect(harness.client.currentUser?.id == "user-2")
        #expect(harness.provider.counts.revoke == 0)
        await harness.client.shutdown()
    }

    @Test func aSecondFactorIsAskedForWithTheSessionStillStored() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        let action = UserAction(kind: "mfa", continuationToken: "mfa-continuation-token", expiresAt: harness.clock.now.addingTimeInterval(600))
        harness.provider.script(login: [.fail(AuthError.needsUserAction(action, "a second factor is needed"))])
        let error = await authError {
            try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        }
        #expect(error?.code == .needsUserAction)
        #expect(harness.client.pendingUserAction == action)
        #expect(try await harness.storedRecord() == stored, "an unfinished login leaves the stored session")
        // Another process (or this one after a restart) still finds the old session.
        let other = harness.restarted(options: Self.options)
        try await other.start(validating: false)
        #expect(other.currentUser?.id == "user-1")
        await other.shutdown()
        // The next factor finishes the login, with the pending step handed to the provider.
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "user-2")
        #expect(harness.provider.state.withLock { $0.loginPending.last } == action)
        #expect(harness.provider.counts.revoke == 1)
        await harness.client.shutdown()
    }

    @Test func aWrongSecondFactorKeepsBothTheStepAndTheSession() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        let stored = try await harness.storedRecord()
        let action = UserAction(kind: "mfa", continuationToken: "mfa-continuation-token", expiresAt: harness.clock.now.addingTimeInterval(600))
        harness.provider.script(login: [.fail(AuthError.needsUserAction(action, "a second factor is needed"))])
        _ = await authError { try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse")) }
        let wrong = await authError { try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-2", password: "wrong")) }
        #expect(wrong?.code == .unrecoverable)
        #expect(harness.client.pendingUserAction == action)
        #expect(try await harness.storedRecord() == stored)
        await harness.client.shutdown()
    }

    @Test func anExpiredSessionStaysWhenTheLoginIsRefused() async throws {
        let harness = try Harness(lifetime: 300, options: Self.options)
        try await harness.login()
        harness.clock.advance(by: .seconds(301))
        await settle("expired") { harness.client.state == .tokenExpired }
        let stored = try await harness.storedRecord()
        _ = await authError { try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-1", password: "wrong")) }
        #expect(harness.client.state == .tokenExpired)
        #expect(try await harness.storedRecord() == stored)
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.provider.counts.revoke == 1)
        await harness.client.shutdown()
    }

    @Test func withNothingSignedInItIsALogin() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.client.start()
        try await harness.client.replaceSession(with: ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.provider.counts.revoke == 0)
        await harness.client.shutdown()
    }

    @Test func aTerminatedSessionIsClearedBeforeTheLogin() async throws {
        let harness = try Harness(options: Self.options)
        try await harness.login()
        harness.provider.script(validate: [.fail(AuthError.terminated(.globalBan, "banned", providerCode: "400312", httpStatus: 403))])
        let restarted = harness.restarted(options: Self.options)
        try await restarted.start()
        #expect(restarted.state == .terminated(.globalBan))
        try await restarted.replaceSession(with: ScriptedCredentials(user: "user-2", password: "correct horse"))
        #expect(restarted.state == .established)
        #expect(restarted.currentUser?.id == "user-2")
        await restarted.shutdown()
        await harness.client.shutdown()
    }
}
