import Foundation
import LatchkeyEmulator
import Testing

/// `latchkey session login` while a session is stored: the new login runs on its own and
/// replaces the stored session only once it succeeded, then revokes the replaced one.
@Suite struct SessionReloginTests {
    /// Refuses a login as the provider would: a wrong password, or (social.plus, which has
    /// none) a user the network banned.
    private func refusedLogin(_ fixture: SessionCLIFixture) async throws -> (arguments: [String], stdin: String) {
        if fixture.provider == .socialPlus {
            try await fixture.emulator.control.banUser("bob", provider: .socialPlus)
            return (["login", "--user-id", "bob"], "")
        }
        return fixture.passwordLogin(wrong: true)
    }

    @Test(arguments: SessionCLIFixture.Provider.allCases)
    func aRefusedLoginLeavesTheStoredSessionAsItWas(provider: SessionCLIFixture.Provider) async throws {
        let fixture = try await SessionCLIFixture.start(provider)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let token = try await fixture.token()
        let before = try fixture.storeSnapshot()
        #expect(!before.isEmpty)

        let refused = try await refusedLogin(fixture)
        let result = try await fixture.run(refused.arguments, stdin: refused.stdin)
        #expect(result.status != 0, "\(result.stdout)")
        #expect(try fixture.storeSnapshot() == before, "nothing was written to the store")

        // The session is still the same one, and still valid at the provider (whose check
        // may hand out a fresh session JWT: Stytch).
        #expect(try await fixture.token() == token)
        let status = try await fixture.run(["status"])
        #expect(status.status == 0, "\(status.stdout) \(status.stderr)")
        #expect(status.stdout.contains("established"))
        #expect(await fixture.emulator.control.count(revokeRoute(provider)) == 0, "nothing was revoked")
    }

    @Test(arguments: SessionCLIFixture.Provider.allCases)
    func aNewLoginReplacesTheSessionAndRevokesTheOldOne(provider: SessionCLIFixture.Provider) async throws {
        let fixture = try await SessionCLIFixture.start(provider)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let old = try await fixture.token()
        try await fixture.logIn()
        let new = try await fixture.token()
        #expect(new != old)
        #expect(await fixture.emulator.control.count(revokeRoute(provider)) == 1, "the replaced session was revoked")
        let status = try await fixture.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("established"))
    }

    @Test func anUnreachableProviderAtLoginKeepsTheSession() async throws {
        let fixture = try await SessionCLIFixture.start(.stytch)
        defer { Task { await fixture.stop() } }
        try await fixture.logIn()
        let before = try fixture.storeSnapshot()
        await fixture.emulator.control.inject(
            EmulatorFault(
                route: EmulatorRoute(.stytch, "POST", "/sdk/v1/passwords/authenticate"),
                kind: .status(503), trigger: .next(10)))
        let login = fixture.passwordLogin()
        let result = try await fixture.run(login.arguments, stdin: login.stdin)
        #expect(result.status != 0)
        #expect(try fixture.storeSnapshot() == before)
        await fixture.emulator.control.clearFaults()
        #expect(try await fixture.run(["status"]).status == 0)
    }

    private func revokeRoute(_ provider: SessionCLIFixture.Provider) -> EmulatorRoute {
        switch provider {
        case .stytch: EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/revoke")
        case .stytchB2B: EmulatorRoute(.stytch, "POST", "/sdk/v1/b2b/sessions/revoke")
        case .auth0: EmulatorRoute(.auth0, "POST", "/oauth/revoke")
        case .socialPlus: EmulatorRoute(.socialPlus, "DELETE", "/api/v4/sessions")
        }
    }
}
