import Foundation
import Glibc
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySecrets
import Testing

/// Renewal across real processes sharing one encrypted-file store, against the emulator
/// (in this process) over loopback HTTP: Auth0.swift #457 (concurrent renewals under
/// rotation) and #490 (killed mid-renewal).
@Suite("Auth0 renewal across processes and SIGKILL")
struct CrossProcessRenewalTests {
    @Test func twoProcessesSharingTheStoreMakeOneRefreshGrant() async throws {
        let processes = try await Auth0Processes.start()
        defer { Task { await processes.stop() } }
        let (setup, loginRefreshToken) = try await processes.loggedInStore("shared")
        // The renewal is slow at Auth0, so the other process asks while it is under way.
        await processes.control.inject(EmulatorFault(route: tokenRoute, grant: "refresh_token", kind: .delay(milliseconds: 300)))
        let outputs = ["a", "b"].map { processes.directory + "/" + $0 }
        let go = processes.directory + "/go"
        let children = outputs.map { processes.child("access-tokens", setup: setup, output: $0, extra: ["LATCHKEY_GO": go, "LATCHKEY_CALLS": "25"]) }
        for child in children { try child.run() }
        let ready = await poll { outputs.allSatisfy { fileExists($0 + ".ready") } }
        #expect(ready, "the children started: \(outputs.map { contents($0) + contents($0 + ".stderr") })")
        #expect(FileManager.default.createFile(atPath: go, contents: Data()))
        for (child, output) in zip(children, outputs) {
            #expect(await waitForExit(child), "a child hung")
            #expect(child.terminationStatus == 0, "\(contents(output)) \(contents(output + ".stderr").suffix(2_000))")
        }

        let tokens = outputs.map { contents($0).split(separator: "\n").map(String.init) }
        #expect(tokens.map(\.count) == [25, 25])
        #expect(Set(tokens.joined()).count == 1, "both processes, every call: the one renewed access token")
        #expect(await processes.refreshGrants() == 1, "exactly one refresh_token grant across the two processes")

        // The store holds that token and the newest refresh token of the family.
        let stored = try #require(try await StoredAuth0Session.read(setup))
        #expect(stored.accessToken == tokens[0].first)
        #expect(stored.refreshToken != loginRefreshToken)
        let status = try await processes.control.auth0RefreshTokenStatus(stored.refreshToken)
        #expect(status.known && status.newest && !status.spent && !status.familyRevoked && status.issuedInFamily == 2, "\(status)")
        let spent = try await processes.control.auth0RefreshTokenStatus(loginRefreshToken)
        #expect(spent.spent && spent.familyID == status.familyID)
        // And Auth0 takes the access token.
        var request = TransportRequest(url: processes.auth0.baseURL.appending(path: "userinfo"))
        request.headers["Authorization"] = "Bearer \(stored.accessToken)"
        #expect(try await URLSessionTransport().send(request).status == 200)
    }

    /// Where a SIGKILL lands in a renewal.
    enum KillMoment: Sendable, CustomStringConvertible {
        /// The child waits for the store's lock (held by the test): nothing was sent.
        case beforeTheRequest
        /// The refresh request is at Auth0 (held there by a delay); Auth0 rotates after the child died.
        case atTheEmulator
        /// This long after Auth0 logged its answer (rotated), as the child receives and saves it.
        case afterTheAnswer(milliseconds: Int)
        /// As soon as the store holds a new refresh token (the child saved, and is about to
        /// hand the token out).
        case afterTheSave

        var description: String {
            switch self {
            case .beforeTheRequest: "before the request"
            case .atTheEmulator: "while the request is at Auth0"
            case .afterTheAnswer(let milliseconds): "\(milliseconds) ms after Auth0 answered"
            case .afterTheSave: "right after the save"
            }
        }
    }

    /// What the two sides say after the kill.
    enum Outcome: Sendable, Hashable {
        /// Auth0 never issued a new token; the store holds the old one, unspent.
        case neverIssued
        /// The store holds the newest token Auth0 issued.
        case newestSaved
        /// Auth0 rotated, the child died before saving: the store holds the spent old token.
        case issuedButUnsaved
    }

    /// Reads the stored refresh token and asks Auth0 about it.
    private func judge(_ setup: Auth0ProcessSetup, old: String, _ processes: Auth0Processes, _ moment: KillMoment) async throws -> Outcome? {
        let stored = try #require(try await StoredAuth0Session.read(setup), "\(moment): the store lost the session")
        let status = try await processes.control.auth0RefreshTokenStatus(stored.refreshToken)
        #expect(status.known && !status.familyRevoked, "\(moment): \(status)")
        if stored.refreshToken == old, status.newest, !status.spent, status.issuedInFamily == 1 { return .neverIssued }
        if stored.refreshToken != old, status.newest, !status.spent, status.issuedInFamily == 2 { return .newestSaved }
        if stored.refreshToken == old, status.spent, !status.newest, status.issuedInFamily == 2 { return .issuedButUnsaved }
        Issue.record("\(moment): the stored refresh token is neither the newest Auth0 issued nor the old one unrotated: \(status)")
        return nil
    }

    /// One login, one child renewing, one SIGKILL at `moment`; then both sides read and a
    /// restart checked.
    private func killRound(_ moment: KillMoment, round: Int, _ processes: Auth0Processes) async throws -> Outcome? {
        let (setup, old) = try await processes.loggedInStore("kill-\(round)")
        let grants = await processes.refreshGrants()
        let output = processes.directory + "/kill-\(round)"
        let control = processes.control
        switch moment {
        case .beforeTheRequest:
            // Hold the store's lock (the one renewals take across processes) while the
            // child starts and asks; it waits for the lock and dies waiting.
            let child = processes.child("renew", setup: setup, output: output)
            try child.run()
            let pid = child.processIdentifier
            try await setup.store().withExclusiveLock {
                #expect(await poll { fileExists(output + ".started") }, "\(contents(output + ".stderr").suffix(2_000))")
                try await Task.sleep(for: .milliseconds(150))
                kill(pid, SIGKILL)
            }
            _ = await waitForExit(child)
            #expect(await processes.refreshGrants() == grants, "\(moment): nothing reached Auth0")
        case .atTheEmulator:
            await control.inject(EmulatorFault(route: tokenRoute, grant: "refresh_token", kind: .delay(milliseconds: 5_000)))
            let child = processes.child("renew", setup: setup, output: output)
            try child.run()
            // The fault is taken when the request arrives: from then on it is at Auth0.
            #expect(await poll { await control.pendingFaults().isEmpty }, "\(contents(output + ".stderr").suffix(2_000))")
            kill(child.processIdentifier, SIGKILL)
            _ = await waitForExit(child)
            // Auth0 finishes the exchange nobody waits for any more: it rotates.
            #expect(await poll { await processes.refreshGrants() == grants + 1 })
        case .afterTheAnswer(let milliseconds):
            let child = processes.child("renew", setup: setup, output: output)
            try child.run()
            #expect(
                await poll(every: .microseconds(100)) { await processes.refreshGrants() == grants + 1 },
                "\(contents(output + ".stderr").suffix(2_000))")
            if milliseconds > 0 { try await Task.sleep(for: .milliseconds(milliseconds)) }
            kill(child.processIdentifier, SIGKILL)
            _ = await waitForExit(child)
        case .afterTheSave:
            let child = processes.child("renew", setup: setup, output: output)
            try child.run()
            let saved = await poll(every: .microseconds(200)) {
                guard let stored = try? await StoredAuth0Session.read(setup) else { return false }
                return stored.refreshToken != old
            }
            #expect(
                saved,
                "\(contents(output + ".stderr").suffix(2_000))")
            kill(child.processIdentifier, SIGKILL)
            _ = await waitForExit(child)
        }

        let outcome = try await judge(setup, old: old, processes, moment)
        // A restart: the app opens the same store (and validates, as `start()` does).
        let restarted = try setup.client(now: control.now)
        try await restarted.start()
        switch outcome {
        case .neverIssued, .newestSaved:
            let reason = await restarted.endError
            #expect(restarted.state == .established, "\(moment): \(restarted.state) \(String(describing: reason))")
            let stored = try #require(try await StoredAuth0Session.read(setup))
            let status = try await control.auth0RefreshTokenStatus(stored.refreshToken)
            #expect(status.newest && !status.spent && !status.familyRevoked, "\(moment): after the restart \(status)")
        case .issuedButUnsaved:
            // The rotated token was issued but never saved: it is lost. The restart presents
            // the spent one, Auth0 sees a reuse and revokes the family (invalid_grant), and
            // the client ends the session cleanly — logged out, with the reason, store cleared.
            #expect(restarted.state == .notLoggedIn, "\(moment): \(restarted.state)")
            let reason = await restarted.endError
            #expect(reason?.isInvalidRefreshToken == true, "\(moment): \(String(describing: reason))")
            #expect(reason?.httpStatus == 403)
            #expect(try await setup.store().get(SessionOptions().vaultEntryName) == nil)
            #expect(try await control.auth0RefreshTokenStatus(old).familyRevoked)
        case nil:
            break
        }
        await restarted.shutdown()
        return outcome
    }

    @Test func sigkillDuringRenewalLeavesTheNewestTokenOrTheOldOneAndARestartEndsCleanly() async throws {
        let processes = try await Auth0Processes.start()
        defer { Task { await processes.stop() } }
        var round = 0
        func run(_ moment: KillMoment) async throws -> Outcome? {
            round += 1
            return try await killRound(moment, round: round, processes)
        }
        #expect(try await run(.beforeTheRequest) == .neverIssued)
        #expect(try await run(.atTheEmulator) == .issuedButUnsaved)
        // Between Auth0's answer and the save (a few milliseconds here) either can be found;
        // each is judged, and its restart checked, by what the two sides say.
        var afterTheAnswer: [Outcome?] = []
        for milliseconds in [0, 0, 1, 2, 5, 10, 25] {
            afterTheAnswer.append(try await run(.afterTheAnswer(milliseconds: milliseconds)))
        }
        #expect(!afterTheAnswer.contains(nil))
        #expect(!afterTheAnswer.contains(.neverIssued), "Auth0 had rotated in every one")
        #expect(try await run(.afterTheSave) == .newestSaved)
    }

    @Test func withARotationOverlapPeriodARestartInsideItRecoversTheLostRotation() async throws {
        var seed = Auth0Seed.standard
        seed.refreshTokenReuseInterval = 60
        let processes = try await Auth0Processes.start(seed: seed)
        defer { Task { await processes.stop() } }
        let (setup, old) = try await processes.loggedInStore("overlap")
        await processes.control.inject(EmulatorFault(route: tokenRoute, grant: "refresh_token", kind: .delay(milliseconds: 5_000)))
        let output = processes.directory + "/overlap"
        let child = processes.child("renew", setup: setup, output: output)
        try child.run()
        #expect(await poll { await processes.control.pendingFaults().isEmpty })
        kill(child.processIdentifier, SIGKILL)
        _ = await waitForExit(child)
        #expect(await poll { await processes.refreshGrants() == 1 })
        #expect(try await StoredAuth0Session.read(setup)?.refreshToken == old)
        #expect(try await processes.control.auth0RefreshTokenStatus(old).spent)
        // Within the period Auth0 lets the spent token through once more.
        processes.control.advanceClock(by: 30)
        let restarted = try setup.client(now: processes.control.now)
        try await restarted.start()
        #expect(restarted.state == .established)
        let stored = try #require(try await StoredAuth0Session.read(setup))
        let status = try await processes.control.auth0RefreshTokenStatus(stored.refreshToken)
        #expect(status.newest && !status.familyRevoked && status.issuedInFamily == 3)
        await restarted.shutdown()
    }
}
