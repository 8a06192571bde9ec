import Foundation
import Latchkey
import Synchronization
import Testing

@testable import LatchkeySoak

/// The soak's wire: a session-issuing request holds the user's lock for as long as the
/// client waits for it — and no longer.
@Suite(.timeLimit(.minutes(1))) struct SoakTransportTests {
    /// A base transport whose answers wait until the test lets them go.
    final class HeldTransport: HTTPTransport {
        private let state = Mutex<(arrived: Int, released: Bool, waiters: [CheckedContinuation<Void, Never>])>((0, false, []))

        var arrived: Int { state.withLock { $0.arrived } }

        func release() {
            let waiters = state.withLock { state in
                state.released = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    state.arrived += 1
                    if state.released { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
            return TransportResponse(status: 200, body: Data("{}".utf8))
        }
    }

    static func transport(base: HeldTransport, client: Int, lockPath: String, probe: HostProbe) throws -> SoakTransport {
        let driver = try SocialPlusSoakDriver(endpoint: ["base_url": "http://127.0.0.1:9", "api_key": "soak-test-key"])
        return SoakTransport(
            base: base, gate: Gate(permits: 4), deadline: .seconds(20), driver: driver, user: "soak-user", client: client,
            lockPath: lockPath, probe: probe, ledger: SecretLedger(), isLoggingIn: { false }, ledgerPath: nil)
    }

    /// An app's transport stops waiting for a request whose task is cancelled (a shut-down
    /// client's heartbeat check): so does the soak's, and the user's lock is free at once for
    /// the next client. Waiting for the deadline instead held the lock into the next client's
    /// first request after an in-process restart — an "overlap" no app would have.
    @Test func aCancelledRequestLeavesTheWireAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "soak-transport-\(UInt32.random(in: .min ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lockPath = directory.appending(path: "user.lock").path
        let probe = HostProbe()
        let held = HeldTransport()
        let login = TransportRequest(method: "POST", url: URL(string: "http://127.0.0.1:9/api/v5/sessions")!, body: Data("{}".utf8))

        let old = try Self.transport(base: held, client: 1, lockPath: lockPath, probe: probe)
        let shutDown = Task { try await old.send(login) }
        while held.arrived < 1 { try await Task.sleep(for: .milliseconds(5)) }
        shutDown.cancel()
        let outcome = await shutDown.result
        #expect(throws: CancellationError.self, "abandoned when cancelled, not at the deadline") { try outcome.get() }

        let next = try Self.transport(base: held, client: 2, lockPath: lockPath, probe: probe)
        held.release()
        #expect(try await next.send(login).status == 200)
        let (_, violations) = probe.drain()
        #expect(violations.isEmpty, "the next client's request overlapped nothing")
    }
}
