import Foundation
import Latchkey
import LatchkeySecrets
import Testing

/// Start: restoring a stored session.
@Suite(.noSecretLeaks) struct RestoreTests {
    @Test func nothingStoredStartsNotLoggedIn() async throws {
        let harness = try Harness()
        try await harness.client.start()
        #expect(harness.client.state == .notLoggedIn)
        #expect(harness.provider.counts.validate == 0)
        var iterator = harness.client.userChanges.makeAsyncIterator()
        #expect(await iterator.next() == .unavailable(.notLoggedIn))
    }

    @Test func aValidStoredSessionIsValidatedAndPublished() async throws {
        let harness = try Harness()
        try await harness.login()
        let loginTime = harness.clock.now
        harness.clock.advance(by: .seconds(60))
        await harness.client.shutdown()

        let restored = harness.restarted()
        try await restored.start()
        #expect(restored.state == .established)
        #expect(harness.provider.counts.validate == 1)
        #expect(harness.provider.counts.renew == 0)
        #expect(restored.currentUser?.id == "user-1")
        #expect(restored.currentSession?.id == "session-1")
        #expect(await restored.lastValidatedAt == harness.clock.now)
        #expect(await restored.lastValidatedAt != loginTime)
        #expect(await !restored.isRevalidationPending)
        var iterator = restored.userChanges.makeAsyncIterator()
        if case .available(let user, let validated)? = await iterator.next() {
            #expect(user.email == "user-1@example.com")
            #expect(validated == harness.clock.now)
        } else {
            Issue.record("user not published")
        }
        #expect(restored.currentOrganization == nil)
        var organizations = restored.organizationChanges.makeAsyncIterator()
        #expect(await organizations.next() == .unavailable(.notProvided))
        #expect(try await restored.accessToken() == harness.provider.validAccessToken)
    }

    @Test func aStoredSessionTheProviderRejectsIsCleared() async throws {
        let harness = try Harness()
        try await harness.login()
        await harness.client.shutdown()
        harness.provider.script(validate: [.fail(AuthError(.unrecoverable, "session not found", providerCode: "session_not_found", httpStatus: 404))])

        let restored = harness.restarted()
        try await restored.start()
        #expect(restored.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil)
        #expect(restored.currentUser == nil)
        let error = await authError { _ = try await restored.accessToken() }
        #expect(error?.code == .notLoggedIn)
    }

    @Test func networkDownKeepsTheSessionAndRetriesWithBackoffUntilValidated() async throws {
        let harness = try Harness()
        try await harness.login()
        let validatedAtLogin = try #require(await harness.client.lastValidatedAt)
        await harness.client.shutdown()
        harness.clock.advance(by: .seconds(600))
        harness.provider.script(validate: [.failTransport, .failTransport, .failTransport])

        let restored = harness.restarted()
        try await restored.start()
        #expect(restored.state == .established, "a network failure never logs a user out")
        #expect(await restored.isRevalidationPending)
        #expect(await restored.lastValidatedAt == validatedAtLogin, "published as not yet revalidated")
        #expect(restored.currentUser?.id == "user-1")
        #expect(try await harness.storedRecord() != nil)

        // Retries with growing back-off: about 2 s, 4 s, 8 s (±20 % jitter).
        var previousWait: TimeInterval = 0
        for attempt in 2...4 {
            await harness.clock.waitForSleepers(3)  // the heartbeat's retry, the renewal and expiry timers
            let deadline = try #require(harness.clock.nextDeadline)
            let wait = deadline.timeIntervalSince(harness.clock.now)
            #expect(wait > previousWait, "back-off grows")
            #expect(wait < 130, "back-off is capped")
            previousWait = wait
            harness.clock.advance(to: deadline)
            await settle("validation attempt \(attempt)") { harness.provider.counts.validate == attempt }
        }
        await settle("revalidated") { await !restored.isRevalidationPending }
        #expect(restored.state == .established)
        #expect(await restored.lastValidatedAt == harness.clock.now)
        await restored.shutdown()
    }

    @Test func anExpiredStoredTokenIsRenewedInsteadOfValidated() async throws {
        let harness = try Harness(lifetime: 300)
        try await harness.login()
        await harness.client.shutdown()
        harness.clock.advance(by: .seconds(3600))

        let restored = harness.restarted()
        try await restored.start()
        #expect(restored.state == .established)
        #expect(harness.provider.counts.renew == 1)
        #expect(harness.provider.counts.validate == 0)
        #expect(try await restored.accessToken() == harness.provider.validAccessToken)
        await restored.shutdown()
    }

    @Test func aRecordOfAnotherProviderOrANewerFormatIsRefusedAndLeftAlone() async throws {
        for record in [
            #"{"format":1,"provider":"someone-else","tokens":{"access_token":"x"}}"#,
            #"{"format":99,"provider":"scripted","tokens":{"access_token":"x"}}"#,
            #"{"provider":"scripted"}"#,
            "not json",
        ] {
            let harness = try Harness()
            try await harness.store.set("session", record)
            try await harness.client.start()
            #expect(harness.client.state == .notLoggedIn)
            #expect(harness.provider.counts.validate == 0)
            #expect(try await harness.storedRecord() == record, "refused, not misread or deleted")
            #expect(harness.logs.all.contains { $0.contains("stored session not used") })
        }
    }

    @Test func aStoreThatCannotBeReadIsReported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-restore-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = SecretStoreConfiguration(dataDirectory: directory + "/data", configDirectory: directory + "/config")
        let store = try EncryptedFileSecretStore(namespace: "broken", configuration: configuration)
        try await store.set("session", "x")
        // Tamper with the file: the store refuses it, the client reports it.
        let path = configuration.dataFilePath(namespace: "broken")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 1] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let harness = try Harness(store: try EncryptedFileSecretStore(namespace: "broken", configuration: configuration))
        try await harness.client.start()
        #expect(harness.client.state == .restoring, "an unreadable store is not a logout")
        #expect(await harness.client.restoreError?.code == .storage)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes), "nothing on disk was touched")
        await harness.client.shutdown()
    }

    /// An app that asks for a token while the stored session is being checked at start
    /// gets one: the renewal it starts is the session's own, and the check's answer (which
    /// starts the heartbeat and the timers) does not end it. Before, restore's start of the
    /// background work ended every renewal begun during the check, and a caller whose
    /// renewal was still in the app's handler got `cancelled` — the machine, which kept it
    /// as the session's renewal, took its tokens while memory did not.
    @Test(.timeLimit(.minutes(1)))
    func aTokenAskedForWhileTheStoredSessionIsCheckedIsServed() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        await harness.client.shutdown()
        harness.clock.advance(by: .seconds(200))  // 100 s left: a caller asking 150 s renews

        let (validation, handler) = (Gate(), Gate())
        harness.provider.gateValidations { await validation.wait() }
        harness.provider.state.withLock {
            $0.prepareHandler = { _ in
                await handler.wait()
                return RenewalPreparation()
            }
        }
        let restored = harness.restarted(options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        let starting = Task { try await restored.start() }
        await settle("the stored session's check is on the wire") { harness.provider.counts.validate == 1 }
        let asking = Task { try await restored.accessToken(minTTL: .seconds(150)) }
        await settle("the renewal waits in the app's handler") { handler.waiting == 1 }
        validation.open()
        try await starting.value
        #expect(restored.state == .established)
        handler.open()
        let error = await authError { _ = try await asking.value }
        #expect(error == nil, "the caller's renewal was not ended by the check's answer")
        #expect(harness.provider.counts.renew == 1)
        let token = try await restored.accessToken()
        #expect(token == harness.provider.validAccessToken, "memory holds the renewed token")
        #expect(try await harness.storedRecord()?.contains(token) == true)
        await restored.shutdown()
    }
}
