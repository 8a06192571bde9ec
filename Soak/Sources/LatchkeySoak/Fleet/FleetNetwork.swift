internal import Foundation

/// Where the instances run: each in a network namespace of its own, reaching the database
/// and the emulator over a veth link (Scripts/fleet-network.sh made them), or — where the
/// machine allows none — on the host's loopback. With links, the soak can cut one.
struct FleetNetwork: Sendable {
    /// Each instance's namespace, in instance order; empty on loopback.
    let namespaces: [String]
    /// Each namespace's host-side interface.
    let links: [String]
    /// Where the database and the emulator listen for the namespaces.
    let hostAddress: String?
    /// Why there are no namespaces, when there are none.
    let unavailable: String?

    init(environment: [String: String], instances: Int) {
        let namespaces = (environment["LATCHKEY_FLEET_NETNS"] ?? "").split(separator: " ").map(String.init)
        let links = (environment["LATCHKEY_FLEET_LINKS"] ?? "").split(separator: " ").map(String.init)
        if namespaces.count >= instances, links.count == namespaces.count, let address = environment["LATCHKEY_FLEET_HOST_ADDRESS"] {
            self.namespaces = namespaces
            self.links = links
            hostAddress = address
            unavailable = nil
        } else {
            self.namespaces = []
            self.links = []
            hostAddress = nil
            unavailable =
                environment["LATCHKEY_FLEET_NETWORK_UNAVAILABLE"]
                ?? (namespaces.isEmpty ? "not run under Scripts/fleet-network.sh" : "fewer namespaces than instances")
        }
    }

    var description: String {
        if let hostAddress {
            "each instance in a network namespace of its own, over a veth link to \(hostAddress)"
        } else {
            "the host's loopback (no network namespaces: \(unavailable ?? "unknown"))"
        }
    }

    /// The database URL as seen from a namespace: its host replaced by the host address.
    func databaseURL(_ url: String) -> String {
        guard let hostAddress else { return url }
        return url.replacingOccurrences(of: "@127.0.0.1:", with: "@\(hostAddress):")
    }

    /// The program and arguments that run `executable` in instance `index`'s namespace.
    func command(_ index: Int, _ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard index < namespaces.count, let ip = Self.ip() else { return (executable, arguments) }
        return (ip, ["netns", "exec", namespaces[index], executable] + arguments)
    }

    /// Takes instance `index`'s link down (`up: false`) or up again; whether it worked.
    func setLink(_ index: Int, up: Bool) -> Bool {
        guard index < links.count, let ip = Self.ip(),
            let process = try? FleetProcess.spawn(ip, ["link", "set", "dev", links[index], up ? "up" : "down"])
        else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    private static func ip() -> String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
