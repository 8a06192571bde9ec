internal import LatchkeySecrets
internal import Synchronization

/// A store that fails a seeded fraction of reads, writes and removals (the keyring
/// refusing for a moment, a file write failing), in front of a real store. Its lock is
/// the real store's, so processes still exclude each other.
final class FaultyStore: SecretStore {
    let base: any SecretStore
    private let rate: Double
    private let random: Mutex<SoakRandom>
    private let probe: HostProbe
    /// The vault's entry name, and what to tell of each write to it (bytes, whether it
    /// succeeded): the refresh-token ledger's `S`/`F` lines.
    private let vaultEntry: String
    private let vaultWritten: (@Sendable ([UInt8], Bool) -> Void)?
    /// Told when the vault's entry reads empty or is removed (`--keep-logs`: the client's
    /// log gets a line): a session gone with no logout is traced to the call that did it.
    private let vaultTrace: (@Sendable (String) -> Void)?

    init(
        base: any SecretStore, rate: Double, random: SoakRandom, probe: HostProbe, vaultEntry: String = "session",
        vaultWritten: (@Sendable ([UInt8], Bool) -> Void)? = nil, vaultTrace: (@Sendable (String) -> Void)? = nil
    ) {
        self.base = base
        self.rate = rate
        self.random = Mutex(random)
        self.probe = probe
        self.vaultEntry = vaultEntry
        self.vaultWritten = vaultWritten
        self.vaultTrace = vaultTrace
    }

    var namespace: String { base.namespace }
    var backendName: String { base.backendName }

    private func injects() -> Bool { random.withLock { $0.chance(rate) } }

    private func fault(_ entry: String, _ what: String) -> SecretStoreError {
        SecretStoreError(
            .ioFailure, store: "\(base.backendName) \"\(namespace)\" (soak fault injector)", entry: entry,
            reason: "injected \(what) failure")
    }

    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        probe.begin()
        defer { probe.end() }
        let failing = injects()
        probe.update {
            $0.storeReads += 1
            if failing { $0.storeReadFaults += 1 }
        }
        if failing { throw fault(name, "read") }
        let value = try await base.get(name)
        if value == nil, name == vaultEntry { vaultTrace?("store: the vault entry read empty") }
        return value
    }

    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        probe.begin()
        defer { probe.end() }
        let failing = injects()
        probe.update {
            $0.storeWrites += 1
            if failing { $0.storeWriteFaults += 1 }
        }
        let tell = name == vaultEntry ? vaultWritten : nil
        if failing {
            tell?(value, false)
            throw fault(name, "write")
        }
        do { try await base.set(name, value) } catch {
            tell?(value, false)
            throw error
        }
        tell?(value, true)
    }

    @discardableResult
    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        probe.begin()
        defer { probe.end() }
        let failing = injects()
        probe.update {
            $0.storeWrites += 1
            if failing { $0.storeWriteFaults += 1 }
        }
        if failing { throw fault(name, "removal") }
        let removed = try await base.remove(name)
        if name == vaultEntry { vaultTrace?("store: the vault entry removed (it was \(removed ? "there" : "absent"))") }
        return removed
    }

    nonisolated(nonsending) func removeAll() async throws {
        try await base.removeAll()
        vaultTrace?("store: every entry removed")
    }

    nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }

    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await base.withExclusiveLock(body)
    }
}
