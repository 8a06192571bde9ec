import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import Synchronization
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
            try await harness.client.login(
                Auth0Credentials.password(
                    username: "alice@example.com", password: "not-the-password",
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
            try await harness.client.login(
                Auth0Credentials.password(username: "mfa@example.com", password: "mfa-password-1", realm: harness.auth0.connection))
        }
        #expect(error?.code == .needsUserAction)
        #expect(error?.isMFARequired == true)
        let action = try #require(error?.userAction)
        #expect(action.kind == "mfa")
        #expect(action.continuationToken?.isEmpty == false)
        #expect(action.requirements?["challenge"] != nil)
        #expect(action.expiresAt == Auth0Harness.start.addingTimeInterval(600))
        guard case .needsUserAction = harness.client.state else {
            Issue.record("state \(harness.client.state)")
            return
        }
        #expect(!"\(action)".contains(action.continuationToken ?? "-"))

        // A wrong code keeps the step open for another try.
        let wrong = await authError { try await harness.client.login(Auth0Credentials.mfa(otp: "000000")) }
        #expect(wrong?.providerCode == "invalid_grant")
        guard case .needsUserAction = harness.client.state else {
            Issue.record("state \(harness.client.state)")
            return
        }

        try await harness.client.login(Auth0Credentials.mfa(otp: Auth0Seed.User.defaultOTP))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "auth0|mfa")
        #expect(await harness.count("POST", "/oauth/token", grant: "http://auth0.com/oauth/grant-type/mfa-otp") == 2)
        #expect(!harness.logs.all.joined().contains(action.continuationToken ?? "-"))
    }

    @Test func mfaWithARecoveryCodeHandsTheNewCodeToTheApp() async throws {
        let harness = try await Auth0Harness()
        defer { Task { await harness.stop() } }
        try await harness.client.start()
        let mfaError = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "mfa@example.com", password: "mfa-password-1"))
        }
        #expect(mfaError?.isMFARequired == true)
        let shown = Mutex<[Auth0RecoveryCode]>([])
        try await harness.client.login(Auth0Credentials.mfa(recoveryCode: "RECOVERY-CODE-1") { code in shown.withLock { $0.append(code) } })
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "auth0|mfa")
        #expect(await harness.count("POST", "/oauth/token", grant: "http://auth0.com/oauth/grant-type/mfa-recovery-code") == 1)
        // Auth0 spent the code and issued a new one: the app got it, once.
        let codes = shown.withLock { $0 }
        #expect(codes.count == 1)
        let newCode = try #require(codes.first).code
        #expect(newCode.count == 24 && newCode != "RECOVERY-CODE-1")
        // It is a secret: redacted when printed, never logged, never stored.
        #expect(!"\(codes[0])".contains(newCode) && !String(reflecting: codes[0]).contains(newCode))
        #expect(!harness.logs.all.joined(separator: "\n").contains(newCode))
        #expect(try await harness.store.string(SessionOptions().vaultEntryName)?.contains(newCode) == false)

        // The next recovery takes the new code; the old one is refused and the step stays open.
        try await harness.client.logout(revoke: .bestEffort)
        _ = await authError {
            try await harness.client.login(Auth0Credentials.password(username: "mfa@example.com", password: "mfa-password-1"))
        }
        let spent = await authError { try await harness.client.login(Auth0Credentials.mfa(recoveryCode: "RECOVERY-CODE-1") { _ in }) }
        #expect(spent?.providerCode == "invalid_grant")
        guard case .needsUserAction = harness.client.state else {
            Issue.record("state \(harness.client.state)")
            return
        }
        try await harness.client.login(Auth0Credentials.mfa(recoveryCode: newCode) { code in shown.withLock { $0.append(code) } })
        #expect(harness.client.state == .established)
        #expect(shown.withLock { $0.count } == 2)
        #expect(shown.withLock { $0[1].code } != newCode)
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
