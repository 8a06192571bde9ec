import Foundation
import Latchkey
import LatchkeySecrets
import Synchronization
import Testing

/// What a restore must survive: a provider that ended the session meanwhile, and a
/// store that cannot be read for a while (stytch-ios #154, #618).
@Suite(.noSecretLeaks) struct RestoreFailureTests {
    @Test func aBanFoundAtRestoreLandsInTerminatedAndTheUserCanLogInAgain() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        await harness.client.shutdown()
        // Past the token's expiry: the restore renews, and the provider says "banned".
        harness.clock.advance(by: .seconds(3700))
        harness.provider.script(renew: [.fail(AuthError.terminated(.globalBan, "User is globally banned", providerCode: "400312", httpStatus: 403))])
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil))
        let states = Recorder(restarted.stateChanges)
        try await restarted.start()
        #expect(restarted.state == .terminated(.globalBan))
        await settle("published") { states.values.contains(.terminated(.globalBan)) }
        #expect(await restarted.endError?.providerCode == "400312", "the app can read why")
        #expect(restarted.currentUser == nil)
        #expect(try await harness.storedRecord() == nil)
        // The way out: log out, then in again.
        try await restarted.logout()
        #expect(restarted.state == .notLoggedIn)
        try await restarted.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(restarted.state == .established)
        await restarted.shutdown()
    }

    @Test func anUnreadableStoreIsNotALogoutAndIsReadAgain() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        await harness.client.shutdown()
        let stored = try #require(try await store.base.string("session"))

        store.failReads.store(2, ordering: .relaxed)
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil))
        try await restarted.start()
        #expect(restarted.state == .restoring)
        #expect(await restarted.restoreError?.code == .storage)
        #expect(try await store.base.string("session") == stored, "nothing was cleared")
        let refused = await authError { _ = try await restarted.accessToken() }
        #expect(refused?.code == .storage, "no token, but no logout either")

        // The client retries with back-off until the store answers.
        for _ in 0..<2 {
            await harness.clock.waitForSleepers(1)
            harness.clock.advance(by: .seconds(300))
        }
        await settle("restored") { restarted.state == .established }
        #expect(await restarted.restoreError == nil)
        #expect(restarted.currentUser?.id == "user-1")
        #expect(try await store.base.string("session") != nil)
        await restarted.shutdown()
    }

    @Test func aLoginWhileRestoringReplacesTheUnreadableSession() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        store.failReads.store(1, ordering: .relaxed)
        try await harness.client.start()
        #expect(harness.client.state == .restoring)
        try await harness.client.login(ScriptedCredentials(user: "user-2", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "user-2")
        await harness.client.shutdown()
    }

    /// A login that begins while a retry reads the store is not undone by the read's answer
    /// (an empty store: `notLoggedIn` in the middle of the login), and a logout is not undone
    /// by a read that found the session before it was removed.
    @Test func aStoreReadAnsweredAfterALoginOrLogoutBeganIsDropped() async throws {
        let store = try FlakyStore()
        let harness = try Harness(store: store, options: SessionOptions(heartbeatInterval: nil))
        store.failReads.store(1, ordering: .relaxed)
        try await harness.client.start()
        #expect(harness.client.state == .restoring)
        let states = Recorder(harness.client.stateChanges)
        let read = Gate()
        store.readGate.withLock { $0 = { await read.wait() } }
        await harness.clock.waitForSleepers(1)  // the restore's retry
        harness.clock.advance(by: .seconds(300))
        await settle("the retry is reading the store") { read.waiting == 1 }
        store.readGate.withLock { $0 = nil }

        let loginGate = Gate()
        harness.provider.state.withLock { $0.loginGate = { await loginGate.wait() } }
        let login = Task { try await harness.client.login(ScriptedCredentials(user: "user-2", password: "correct horse")) }
        await settle("the login is under way") { harness.client.state == .establishing }
        read.open()
        try await Task.sleep(for: .milliseconds(100))  // the read has answered (nothing stored) by now
        #expect(harness.client.state == .establishing, "the read's answer does not end the login")
        loginGate.open()
        try await login.value
        #expect(harness.client.state == .established)
        #expect(harness.client.currentUser?.id == "user-2")
        await settle("published") { states.values.last == .established }
        #expect(states.values == [.restoring, .establishing, .established])

        // A restart whose store fails once, then a logout while the retry reads the session.
        await harness.client.shutdown()
        store.failReads.store(1, ordering: .relaxed)
        let restarted = harness.restarted(options: SessionOptions(heartbeatInterval: nil))
        try await restarted.start()
        #expect(restarted.state == .restoring)
        let reread = Gate()
        store.readGate.withLock { $0 = { await reread.wait() } }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(300))
        await settle("the retry is reading the store") { reread.waiting == 1 }
        let held = try #require(try await store.base.string("session"), "the read will find the session")
        store.readGate.withLock { $0 = nil }  // the logout's own read goes through
        try await restarted.logout()
        #expect(try await store.base.string("session") == nil)
        // The read answers with what it would have found before the logout removed it.
        try await store.base.set("session", Array(held.utf8))
        reread.open()
        try await Task.sleep(for: .milliseconds(100))
        #expect(restarted.state == .notLoggedIn, "the read's answer does not undo the logout")
        #expect(restarted.currentUser == nil)
        await restarted.shutdown()
    }
}

/// Collects what a stream yields, in a task of its own.
final class Recorder<Element: Sendable & Equatable>: Sendable {
    private final class Box: Sendable { let values = Mutex<[Element]>([]) }
    private let box = Box()
    private let task: Task<Void, Never>

    init(_ changes: Changes<Element>) {
        let box = box
        task = Task {
            for await value in changes { box.values.withLock { $0.append(value) } }
        }
    }

    var values: [Element] { box.values.withLock { $0 } }

    deinit { task.cancel() }
}
