import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

@testable import LatchkeySoak

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Auth0 judge on emulator states built in process, without the soak: the family a
/// late request revoked is explained only by a presentation of the reused token that its
/// client lost — a `U`, or a `P` cut off by the kill `K` (soak seed 76: the killed
/// worker's delayed refresh was applied after the restarted client's, and reuse detection
/// revoked the family the restarted client had just renewed).
@Suite struct Auth0RefreshJudgeTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A family whose first token `t1` was rotated to `t2` and then presented again (the
    /// late request), which revoked the family by reuse; `t2` is then refused.
    private struct LateReuse {
        let control: EmulatorControl
        let t1: String
        let t2: String
    }

    private func withLateReuse(_ body: (LateReuse) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: .standard), clockStart: Self.start))
        do {
            let auth0 = try #require(emulator.auth0)
            let t1 = try #require(
                try await token(
                    auth0,
                    [
                        "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
                        "username": "alice@example.com", "password": "alice-password-1",
                        "realm": .string(auth0.connection), "scope": "openid offline_access",
                    ]))
            // The restarted client's refresh is applied first; the killed worker's, held by
            // the delay, after it: the order the soak's delay fault produced.
            let t2 = try #require(try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(t1)]))
            #expect(try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(t1)]) == nil)
            #expect(try await token(auth0, ["grant_type": "refresh_token", "refresh_token": .string(t2)]) == nil)
            try await body(LateReuse(control: emulator.control, t1: t1, t2: t2))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// The refresh token of a 200 answer; nil for any other.
    private func token(_ auth0: Auth0Endpoint, _ fields: JSONObject) async throws -> String? {
        var body = fields
        body["client_id"] = .string(auth0.clientID)
        var request = URLRequest(url: auth0.baseURL.appending(path: "oauth/token"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object(body).jsonBytes)
        request.timeoutInterval = 60
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        return try JSONValue.parse(bytes: Array(data)).objectValue?["refresh_token"]?.stringValue
    }

    private func explain(_ ledger: [RefreshLedger.Entry], _ state: LateReuse) async -> EndExplanation? {
        var judge = Auth0RefreshJudge(ledger: ledger, control: state.control)
        return await judge.explainDenial()
    }

    @Test func aPresentationCutOffByAKillExplainsTheRevokedFamily() async throws {
        try await withLateReuse { state in
            let (t1, t2) = (state.t1, state.t2)
            let ledger: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.saved, t1), .init(.presented, t1), .init(.killed),
                .init(.saved, t1), .init(.presented, t1), .init(.received, t2), .init(.saved, t2),
                .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(ledger, state) == .rotationLost(.kill, token: t1))
        }
    }

    @Test func aPresentationTheClientGaveUpOnExplainsItInTransit() async throws {
        try await withLateReuse { state in
            let (t1, t2) = (state.t1, state.t2)
            let ledger: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.saved, t1), .init(.presented, t1), .init(.unanswered, t1),
                .init(.presented, t1), .init(.received, t2), .init(.saved, t2),
                .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(ledger, state) == .rotationLost(.transit, token: t1))
        }
    }

    @Test func aReuseNoLostRequestExplainsIsNotExplained() async throws {
        try await withLateReuse { state in
            let (t1, t2) = (state.t1, state.t2)
            // Every presentation of the reused token was answered.
            let answered: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.saved, t1), .init(.presented, t1), .init(.received, t2),
                .init(.saved, t2), .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(answered, state) == nil)
            // A kill after the presentation was answered does not cut it off.
            let killedLater: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.presented, t1), .init(.received, t2), .init(.killed),
                .init(.saved, t2), .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(killedLater, state) == nil)
            // A lost request after the denied token arrived is a stale token a live client
            // sent, not a late request: not explained either.
            let staleAfter: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.presented, t1), .init(.received, t2), .init(.saved, t2),
                .init(.presented, t1), .init(.unanswered, t1), .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(staleAfter, state) == nil)
            // A revocation event does not excuse reuse detection.
            let withEvent: [RefreshLedger.Entry] = [
                .init(.received, t1), .init(.presented, t1), .init(.received, t2), .init(.event),
                .init(.presented, t2), .init(.denied, t2),
            ]
            #expect(await explain(withEvent, state) == nil)
        }
    }

    @Test func aRevocationOnPurposeIsExplainedByItsEventOnly() async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], seed: EmulatorSeed(auth0: .standard), clockStart: Self.start))
        do {
            let auth0 = try #require(emulator.auth0)
            let t1 = try #require(
                try await token(
                    auth0,
                    [
                        "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
                        "username": "alice@example.com", "password": "alice-password-1",
                        "realm": .string(auth0.connection), "scope": "openid offline_access",
                    ]))
            _ = try await emulator.control.revokeSessions(of: "auth0|alice", provider: .auth0)
            let state = LateReuse(control: emulator.control, t1: t1, t2: t1)
            #expect(await explain([.init(.received, t1), .init(.event), .init(.presented, t1), .init(.denied, t1)], state) == .revokedOnPurpose)
            #expect(await explain([.init(.received, t1), .init(.presented, t1), .init(.denied, t1)], state) == nil)
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }
}
