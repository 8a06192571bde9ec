internal import Foundation
internal import Latchkey

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
    /// deadline is ``SoakTransport``'s).
    let wire: URLSessionTransport
    /// Distinguishes this process's store-fault streams from earlier runs of the same worker.
    let processIncarnation: Int

    init(driver: any SoakDriver, settings: SoakSettings, now: Date, processIncarnation: Int) {
        self.driver = driver
        self.settings = settings
        clock = ManualClock(now: now)
        probe = HostProbe()
        ledger = SecretLedger()
        registry = ProviderRegistry()
        registry.register(driver.factory)
        wire = URLSessionTransport(defaultTimeout: .seconds(5))
        self.processIncarnation = processIncarnation
    }

    var sessionOptions: SessionOptions {
        SessionOptions(heartbeatInterval: .seconds(settings.heartbeatMinutes * 60))
    }

    /// The user's own namespace in the shared encrypted-file store.
    func storeSettings(for user: SoakUser) -> StoreSettings {
        StoreSettings(backend: .file, namespace: SoakPaths.namespace(driver: type(of: driver).name, user: user.id),
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
}
