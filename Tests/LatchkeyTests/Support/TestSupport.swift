import Foundation
import Latchkey
import LatchkeySecrets
// Every file of the suite uses the shared support (logs, settle, errors).
@_exported import LatchkeyTestSupport
import Logging
import Synchronization
import Testing

/// Everything a client test needs: a manual clock, the scripted provider, a store, the
/// app API and captured logs.
struct Harness {
    let clock: ManualClock
    let provider: ScriptedProvider
    let store: any SecretStore
    let api: AppAPITransport
    let logs: LogCapture
    let client: AuthClient

    init(
        store: (any SecretStore)? = nil, extendsSessions: Bool = false, lifetime: TimeInterval = 3600,
        options: SessionOptions = SessionOptions(), clock: ManualClock = ManualClock()
    ) throws {
        self.clock = clock
        provider = ScriptedProvider(extendsSessions: extendsSessions, lifetime: lifetime, clock: clock)
        self.store = try store ?? MemorySecretStore(namespace: "test")
        api = AppAPITransport(provider: provider)
        logs = LogCapture()
        client = AuthClient(provider: provider, store: self.store, options: options, transport: api, clock: clock, logger: logs.logger)
        guard let ledger = SecretLedger.current else {
            Issue.record("a Harness outside a suite marked .noSecretLeaks: its logs and errors would go unchecked for secrets")
            return
        }
        ledger.watch(logs)
        ledger.watch(client)
    }

    /// A second client on the same store and provider, as after a restart.
    func restarted(options: SessionOptions = SessionOptions()) -> AuthClient {
        let client = AuthClient(provider: provider, store: store, options: options, transport: api, clock: clock, logger: logs.logger)
        SecretLedger.current?.watch(client)
        return client
    }

    func login() async throws {
        try await client.start()
        try await client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
    }

    /// The vault record's bytes read as text (tokens are stored as plain UTF-8 in it), or nil.
    func storedRecord() async throws -> String? {
        try await store.string(SessionOptions().vaultEntryName)
    }
}

/// Waits, with the `.manualClock` patience of LatchkeyTestSupport, until `condition` holds.
func settle(_ what: Comment, _ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    await settle(what, patience: .manualClock, sourceLocation: sourceLocation, condition)
}

/// Runs `body` and returns the AuthError it threw, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    await thrownError(AuthError.self, inspect: { SecretLedger.current?.inspect(error: $0, "a caught AuthError") }, body)
}
