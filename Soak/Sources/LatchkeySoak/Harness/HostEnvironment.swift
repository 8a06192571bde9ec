internal import Foundation
internal import Latchkey

#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// What every user of one host (one process) shares: the driver, the settings, the
/// simulated clock, the wire, the tally and the secret ledger.
struct HostEnvironment: Sendable {
    let driver: any SoakDriver
    let settings: SoakSettings
    let clock: ManualClock
    let probe: HostProbe
    let ledger: SecretLedger
    let registry: ProviderRegistry
    /// One URLSession for the whole process (its own timeout long: the soak's short
    /// deadline is ``SoakTransport``'s), with ``connections`` connections per host.
    let wire: URLSessionTransport
    /// The session under ``wire``, invalidated when the host finishes: its idle keep-alive
    /// connections would otherwise hold the emulator's graceful shutdown open.
    let session: URLSession
    /// As many permits as the session has connections: a request waits here, before its
    /// deadline starts, so the deadline times the exchange with the emulator and not the
    /// queue of a process hosting hundreds of apps (all of whose renewal timers fire at once
    /// when the clocks advance).
    let wireGate: Gate
    static let connections = 8
    /// Distinguishes this process's store-fault streams from earlier runs of the same worker.
    let processIncarnation: Int

    init(driver: any SoakDriver, settings: SoakSettings, now: Date, processIncarnation: Int) {
        self.driver = driver
        self.settings = settings
        clock = ManualClock(now: now.addingTimeInterval(settings.skewSeconds))
        probe = HostProbe()
        ledger = SecretLedger()
        registry = ProviderRegistry()
        registry.register(driver.factory)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = Self.connections
        session = URLSession(configuration: configuration)
        wire = URLSessionTransport(session: session, defaultTimeout: .seconds(5))
        wireGate = Gate(permits: Self.connections)
        self.processIncarnation = processIncarnation
    }

    var sessionOptions: SessionOptions {
        SessionOptions(heartbeatInterval: .seconds(settings.heartbeatMinutes * 60))
    }

    /// The user's refresh-token ledger, when the driver keeps one.
    func ledgerPath(for user: SoakUser) -> String? {
        driver.tracksRefreshTokens ? SoakPaths.ledger(settings.directory, driver: type(of: driver).name, user: user.id) : nil
    }

    /// The user's own namespace in the shared encrypted-file store.
    func storeSettings(for user: SoakUser) -> StoreSettings {
        StoreSettings(
            backend: .file, namespace: SoakPaths.namespace(driver: type(of: driver).name, user: user.id),
            dataDirectory: SoakPaths.data(settings.directory), configDirectory: SoakPaths.config(settings.directory))
    }
}

/// Where a run keeps its files.
enum SoakPaths {
    static func data(_ root: String) -> String { root + "/data" }
    static func config(_ root: String) -> String { root + "/config" }
    static func locks(_ root: String) -> String { root + "/inflight" }
    static func namespace(driver: String, user: String) -> String { "soak.\(driver).\(user)" }
    static func lock(_ root: String, driver: String, user: String) -> String { locks(root) + "/\(driver).\(user).lock" }
    static func ledgers(_ root: String) -> String { root + "/ledgers" }
    static func logs(_ root: String) -> String { root + "/logs" }
    static func ledger(_ root: String, driver: String, user: String) -> String { ledgers(root) + "/\(driver).\(user).ledger" }
    /// The emulator's request log and Auth0 refresh log, one JSON line per record (with `--keep-logs`).
    static func emulatorLog(_ root: String) -> String { logs(root) + "/emulator.jsonl" }
}
