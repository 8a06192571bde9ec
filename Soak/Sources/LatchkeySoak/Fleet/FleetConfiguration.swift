internal import Foundation
internal import Latchkey
internal import LatchkeyAuth0
internal import LatchkeyPostgres
internal import LatchkeySecrets

/// What one instance of the fleet soak needs, written by the parent as JSON and read by
/// the instance (`latchkey-soak --fleet-instance <file>`): the tenant, the database, the
/// key directory every instance shares, the users and the run's private directory.
struct FleetConfiguration: Codable, Sendable {
    var instance: Int
    var domain: String
    var baseURL: String
    var clientID: String
    var databaseURL: String
    var users: Int
    var capacity: Int
    var concurrency: Int
    var directory: String
    /// In a network namespace: where the emulator listens. The instance relays its own
    /// loopback's port of ``baseURL`` there (``FleetRelay``).
    var relayTarget: String?
    /// Whether the instance writes its trace (``FleetTrace``) to `instance-N.trace`.
    var trace = false

    /// Where this instance's trace goes, when it traces.
    var tracePath: String? { trace ? FleetPaths(directory: directory).trace(instance) : nil }

    /// The host's key for user `index`, and the user's store namespace.
    static func userID(_ index: Int) -> String { "u\(index)" }
    /// The tenant's ID of the user of index `index`.
    static func tenantUserID(_ index: Int) -> String { "auth0|fleet\(index)" }
    /// The fleet's user ID (``userID(_:)``) of a tenant user ID; nil for one it did not seed.
    static func userID(tenantUserID: String) -> String? {
        guard tenantUserID.hasPrefix("auth0|fleet"), let index = Int(tenantUserID.dropFirst("auth0|fleet".count)) else { return nil }
        return userID(index)
    }
    static func namespace(_ userID: String) -> String { "fleet." + userID }

    var keyConfiguration: SecretStoreConfiguration {
        SecretStoreConfiguration(dataDirectory: directory + "/keys/data", configDirectory: directory + "/keys/config")
    }

    /// The instance's database: a pool of its own, sealing with the shared key file.
    func database() throws -> PostgresSecretDatabase {
        var options = PostgresSecretDatabase.Options()
        options.keyConfiguration = keyConfiguration
        options.lockTimeout = .seconds(120)
        options.operationTimeout = .seconds(30)
        options.logger = FleetTrace.logger("latchkey.postgres", path: tracePath)
        return try PostgresSecretDatabase(url: databaseURL, options: options)
    }

    func auth0() throws -> Auth0Configuration {
        guard let url = URL(string: baseURL) else { throw SoakError("the fleet configuration's base URL does not parse") }
        return try Auth0Configuration(domain: domain, clientID: clientID, baseURL: url)
    }

    /// The host every instance (and the parent, to sign the users in) runs.
    func host(database: PostgresSecretDatabase, transport: any HTTPTransport) throws -> SessionHost {
        let provider = Auth0Provider(configuration: try auth0(), transport: transport)
        return SessionHost(
            provider: provider, options: SessionHostOptions(capacity: capacity, validationAge: .seconds(60)),
            transport: transport, logger: FleetTrace.logger("latchkey.host", path: tracePath)
        ) { [tracePath] userID in
            FleetSavingStore(
                base: try database.store(namespace: Self.namespace(userID)),
                savedPath: FleetPaths(directory: directory).saved(instance), tracePath: tracePath)
        }
    }
}

/// The files of a fleet run, in its private directory.
struct FleetPaths: Sendable {
    let directory: String

    /// Exists once the parent wants the instances to stop.
    var stop: String { directory + "/stop" }
    func configuration(_ instance: Int) -> String { directory + "/instance-\(instance).json" }
    /// What an instance saw: `uses N`, `logout <user> <code>`, `error <code>` lines.
    func events(_ instance: Int) -> String { directory + "/instance-\(instance).events" }
    /// Every token an instance received from the tenant, one a line (private: 0600).
    func secrets(_ instance: Int) -> String { directory + "/instance-\(instance).secrets" }
    /// Every refresh token an instance's store saved, with the time (private: 0600).
    func saved(_ instance: Int) -> String { directory + "/instance-\(instance).saved" }
    func standardError(_ instance: Int) -> String { directory + "/instance-\(instance).stderr" }
    /// An instance's trace, with `--trace` (``FleetTrace``).
    func trace(_ instance: Int) -> String { directory + "/instance-\(instance).trace" }
}
