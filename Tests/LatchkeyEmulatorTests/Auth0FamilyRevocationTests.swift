import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

/// Why the emulated Auth0 tenant revoked a refresh-token family (reuse of which token, a
/// logout's `/oauth/revoke`, an administrator's revocation, a deletion), in its status in
/// process and over the control API, and the refresh log that records every applied grant
/// with its token's family and generation — a delayed request too, after its client left.
@Suite struct Auth0FamilyRevocationTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let tokenRoute = EmulatorRoute(.auth0, "POST", "/oauth/token")
    let http = EmulatorHTTP.shared

    private func withAuth0(_ body: (Emulator, Auth0Endpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: .standard), clockStart: Self.start))
        do {
            try await body(emulator, try #require(emulator.auth0))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func token(_ auth0: Auth0Endpoint, _ fields: JSONObject) async throws -> EmulatorHTTP.Reply {
        var body = fields
        body["client_id"] = .string(auth0.clientID)
        return try await http.send("POST", auth0.baseURL.appending(path: "oauth/token"), json: body)
    }

    private func login(_ auth0: Auth0Endpoint) async throws -> String {
        let reply = try await token(
            auth0,
            [
                "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": "alice@example.com",
                "password": "alice-password-1", "realm": .string(auth0.connection),
                "scope": "openid offline_access",
            ])
        return try #require(try reply.object()["refresh_token"]?.stringValue, "\(reply.text)")
    }

    private func refresh(_ auth0: Auth0Endpoint, _ refreshToken: String) async throws -> EmulatorHTTP.Reply {
        try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
    }

    @Test func reuseDetectionNamesTheReusedTokenAndTheRefreshLogShowsEachGeneration() async throws {
        try await withAuth0 { emulator, auth0 in
            let control = emulator.control
            let first = try await login(auth0)
            let second = try #require(try await refresh(auth0, first).object()["refresh_token"]?.stringValue)
            #expect(try await control.auth0RefreshTokenStatus(second).revocation == nil)
            #expect(try await refresh(auth0, first).status == 403)
            #expect(try await refresh(auth0, second).status == 403)

            let status = try await control.auth0RefreshTokenStatus(second)
            #expect(status.familyRevoked && status.newest && status.generation == 2)
            #expect(status.revocation == .reuse(token: first, generation: 1))
            #expect(try await control.auth0RefreshTokenStatus(first).generation == 1)
            let overHTTP = try await http.send(
                "POST", auth0.baseURL.appending(path: "__emulator/auth0/refresh-tokens/status"),
                json: ["refresh_token": .string(second)]
            ).object()
            #expect(overHTTP["revoked_by"] == "reuse" && overHTTP["revoked_by_reuse_of_generation"] == 1 && overHTTP["generation"] == 2)

            let log = try await control.takeAuth0RefreshLog()
            #expect(log.map(\.outcome) == [.rotated, .reuseRevokedFamily, .refused])
            #expect(log.map(\.generation) == [1, 1, 2])
            #expect(log.map(\.issuedGeneration) == [2, nil, nil])
            #expect(Set(log.map(\.family)) == [status.familyID])
            // Each record names the user the presented token was issued to: one user here.
            #expect(Set(log.map(\.user)).count == 1 && log.allSatisfy { $0.user?.isEmpty == false })
            #expect(log.allSatisfy { $0.date == Self.start })
            #expect(try await control.takeAuth0RefreshLog().isEmpty)
        }
    }

    @Test func aDelayedRequestWhoseClientLeftIsAppliedAndRecordedAsTheReuse() async throws {
        try await withAuth0 { emulator, auth0 in
            let control = emulator.control
            let first = try await login(auth0)
            await control.inject(EmulatorFault(route: Self.tokenRoute, kind: .delay(milliseconds: 5_000), trigger: .next(1)))
            // The first process sends and is never heard from again (its answer is not awaited).
            let abandoned = Task { try? await refresh(auth0, first) }
            await settle { await control.pendingFaults().isEmpty }
            // The restarted process presents the same token: it arrives second and is applied
            // first (5 s is ample for one loopback request, even on a loaded machine).
            let second = try #require(try await refresh(auth0, first).object()["refresh_token"]?.stringValue)
            _ = await abandoned.value
            let status = try await control.auth0RefreshTokenStatus(second)
            #expect(status.familyRevoked && status.newest)
            #expect(status.revocation == .reuse(token: first, generation: 1))
            #expect(try await control.takeAuth0RefreshLog().map(\.outcome) == [.rotated, .reuseRevokedFamily])
        }
    }

    @Test func revocationsOnPurposeSayWhichOne() async throws {
        try await withAuth0 { emulator, auth0 in
            let control = emulator.control
            let revoked = try await login(auth0)
            let reply = try await http.send(
                "POST", auth0.baseURL.appending(path: "oauth/revoke"),
                json: ["client_id": .string(auth0.clientID), "token": .string(revoked)])
            #expect(reply.status == 200)
            #expect(try await control.auth0RefreshTokenStatus(revoked).revocation == .revoke)

            let administered = try await login(auth0)
            #expect(try await control.revokeSessions(of: "auth0|alice", provider: .auth0) >= 1)
            #expect(try await control.auth0RefreshTokenStatus(administered).revocation == .revokeSessions)
            // The first cause stays: a revoked family's token presented again changes nothing.
            #expect(try await refresh(auth0, administered).status == 403)
            #expect(try await control.auth0RefreshTokenStatus(administered).revocation == .revokeSessions)

            let deleted = try await login(auth0)
            try await control.deleteUser("auth0|alice", provider: .auth0)
            #expect(try await control.auth0RefreshTokenStatus(deleted).revocation == .userDeleted)
            #expect(try await control.auth0RefreshTokenStatus(deleted).familyRevoked)
        }
    }
}

/// Waits (real time, generously) until `condition` holds.
private func settle(_ condition: () async -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(60)
    while !(await condition()), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
}
