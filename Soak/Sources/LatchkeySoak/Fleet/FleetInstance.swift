internal import Foundation
internal import Glibc
internal import Latchkey
internal import Synchronization

/// One server instance of the fleet soak, in a process of its own: a ``SessionHost`` on
/// the shared PostgreSQL database, whose workers ask for random users' access tokens
/// until the parent's stop file appears (or the parent kills it). What it sees goes to
/// its events file at once (one `write` a line, so a SIGKILL leaves whole lines): `uses N`
/// every second, `logout <user> <code>` when a use finds a user signed out, `error
/// <code>` for any other failure. Nothing secret is written there.
enum FleetInstance {
    static func run(configurationPath: String) async throws {
        let configuration = try JSONDecoder().decode(FleetConfiguration.self, from: Data(contentsOf: URL(fileURLWithPath: configurationPath)))
        let paths = FleetPaths(directory: configuration.directory)
        let events = paths.events(configuration.instance)
        exitWhenOrphaned()
        if let target = configuration.relayTarget, let port = URL(string: configuration.baseURL)?.port {
            try await FleetRelay.start(port: port, target: target)
        }
        let database = try configuration.database()
        let transport = FleetTransport(base: URLSessionTransport(defaultTimeout: .seconds(20)), secretsPath: paths.secrets(configuration.instance))
        let host = try configuration.host(database: database, transport: transport)
        RefreshLedger.appendText("started\n", to: events)
        let tally = UseTally(events: events)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<configuration.concurrency {
                group.addTask {
                    while access(paths.stop, F_OK) != 0 {
                        let user = FleetConfiguration.userID(Int.random(in: 0..<configuration.users))
                        do {
                            _ = try await host.accessToken(for: user)
                            tally.uses.add(1, ordering: .relaxed)
                        } catch let error as AuthError {
                            switch error.code {
                            case .notLoggedIn, .terminated, .needsUserAction:
                                RefreshLedger.appendText("logout \(user) \(error.code)\n", to: events)
                            default:
                                RefreshLedger.appendText("error \(error.code)\n", to: events)
                                try? await Task.sleep(for: .milliseconds(200))
                            }
                        } catch {
                            RefreshLedger.appendText("error \(type(of: error))\n", to: events)
                            try? await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
            }
            group.addTask {
                while access(paths.stop, F_OK) != 0 {
                    try? await Task.sleep(for: .seconds(1))
                    tally.report()
                }
            }
        }
        await host.shutdown()
        database.shutdown()
        tally.report()
        RefreshLedger.appendText("stopped\n", to: events)
    }

    /// A parent killed with SIGKILL leaves its instances running: each exits when it
    /// finds itself orphaned.
    private static func exitWhenOrphaned() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(200_000) }
            exit(1)
        }
    }
}

/// The uses an instance made, written to its events file as `uses N` (N since the last line).
private final class UseTally: Sendable {
    let uses = Atomic<Int>(0)
    private let reported = Atomic<Int>(0)
    private let events: String

    init(events: String) { self.events = events }

    func report() {
        let now = uses.load(ordering: .relaxed)
        RefreshLedger.appendText("uses \(now - reported.exchange(now, ordering: .relaxed))\n", to: events)
    }
}
