internal import Foundation

/// The worker process: `latchkey-soak --worker FILE` hosts the users the file names on
/// their stores, starts their clients, then runs the parent's commands from stdin and
/// answers each with a report line on stdout, until told to finish — or killed.
enum WorkerMain {
    static func run(configurationPath: String) async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: configurationPath))
        let configuration = try JSONDecoder().decode(WorkerConfiguration.self, from: data)
        guard let driverType = SoakDrivers.named(configuration.driver) else { throw SoakError("unknown driver \(configuration.driver)") }
        let driver = try driverType.init(endpoint: configuration.endpoint)
        let environment = HostEnvironment(
            driver: driver, settings: configuration.settings,
            now: Date(timeIntervalSince1970: configuration.now), processIncarnation: configuration.incarnation)
        let host = UserHost(environment: environment, users: configuration.users)
        try write(await host.startAll(step: -1))
        let input = LineReader(FileHandle.standardInput)
        while let line = await input.next() {
            let command = try JSONDecoder().decode(HostCommand.self, from: Data(line.utf8))
            switch command.kind {
            case .step: try write(await host.run(command))
            case .finish:
                try write(await host.finish(step: command.step))
                return
            }
        }
    }

    private static func write(_ report: HostReport) throws {
        var data = try JSONEncoder().encode(report)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}
