import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Testing

@Suite("Auth0 password and MFA logins over loopback HTTP")
struct PasswordLoginTests {
    @Test func passwordRealmEstablishesPersistsAndARestartRestores() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.loginAlice()
        #expect(harness.client.state == .established)
        let user = try #require(harness.client.currentUser)
        #expect(user.id == "auth0|alice")
        #expect(user.email == "alice@example.com")
        #expect(user.name == "Alice Liddell")
        #expect(user.raw["email_verified"] == true)
        let session = try #require(harness.client.currentSession)
        #expect(session.userID == "auth0|alice")
        #expect(session.raw["access_token_expires_at"] != nil)
        #expect(await harness.count("POST", "/oauth/token", grant: "http://auth0.com/oauth/grant-type/password-realm") == 1)

        let restarted = harness.restarted()
        try await restarted.start()
        #expect(restarted.state == .established)
        #expect(restarted.currentUser?.id == "auth0|alice")
        #expect(await harness.count("GET", "/userinfo") == 1)
        await restarted.shutdown()
    }

    @Test func passwordGrantWithoutRealm() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        try await harness.client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1"))
        #expect(harness.client.state == .established)
        #expect(await harness.count("POST", "/oauth/token", grant: "password") == 1)
        #expect(harness.client.currentUser?.id == "auth0|alice")
    }

    @Test func wrongPasswordIsRefusedAndNothingLeaks() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let error = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "alice@example.com", password: "not-the-password",
                                                                     realm: harness.auth0.connection))
        }
        #expect(error?.code == .unrecoverable)
        #expect(error?.providerCode == "invalid_grant")
        #expect(error?.httpStatus == 403)
        #expect(error?.message.contains("Wrong email or password.") == true)
        #expect(error?.isInvalidRefreshToken == false)
        #expect(harness.client.state == .notLoggedIn)
        #expect(!harness.logs.all.joined().contains("not-the-password"))
        #expect(!"\(Auth0Credentials.password(username: "a", password: "not-the-password"))".contains("not-the-password"))
    }

    @Test func mfaAtLoginThenOTP() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let error = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "mfa@example.com", password: "mfa-password-1", realm: harness.auth0.connection))
        }
        #expect(error?.code == .needsUserAction)
        #expect(error?.isMFARequired == true)
        let action = try #require(error?.userAction)
        #expect(action.kind == "mfa")
        #expect(action.continuationToken?.isEmpty == false)
        #expect(action.requirements?["challenge"] != nil)
        #expect(action.expiresAt == Auth0Harness.start.addingTimeInterval(600))
        guard case .needsUserAction = harness.client.state else { Issue.record("state \(harness.client.state)"); return }
        #expect(!"\(action)".contains(action.continuationToken ?? "-"))

        // A wrong code keeps the step open for another try.
        let wrong = await authError { try await harness.client.login(Auth0Credentials.mfa(otp: "000000")) }
        #expect(wrong?.providerCode == "invalid_grant")
        guard case .needsUserAction = harness.client.state else { Issue.record("state \(harness.client.state)"); return }

        try await harness.client.login(Auth0Credentials.mfa(otp: Auth0Seed.User.defaultOTP))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "auth0|mfa")
        #expect(await harness.count("POST", "/oauth/token", grant: "http://auth0.com/oauth/grant-type/mfa-otp") == 2)
        #expect(!harness.logs.all.joined().contains(action.continuationToken ?? "-"))
    }

    @Test func mfaWithARecoveryCode() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        _ = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "mfa@example.com", password: "mfa-password-1"))
        }
        try await harness.client.login(Auth0Credentials.mfa(recoveryCode: "RECOVERY-CODE-1"))
        #expect(harness.client.state == .established)
    }

    @Test func mfaCodeWithoutAPendingStepIsRefusedLocally() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let error = await authError { try await harness.client.login(Auth0Credentials.mfa(otp: "123456")) }
        #expect(error?.code == .invalidState)
        #expect(await harness.count("POST", "/oauth/token") == 0)
    }

    @Test func legacyErrorShapeIsRead() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try harness.emulator.control.setAuth0LegacyErrors(true)
        try await harness.client.start()
        let error = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "alice@example.com", password: "wrong"))
        }
        #expect(error?.providerCode == "invalid_grant")
        #expect(error?.message.contains("Wrong email or password.") == true)
    }
}
