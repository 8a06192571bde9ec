import Foundation
import Testing

/// The short soak, as `make test` runs it: the built `latchkey-soak --short` against the
/// emulator over loopback, for all four providers, with faults, store failures, restarts,
/// worker kills, bans, deletions, revocations and expiries — and every invariant's
/// violations zero.
@Suite struct SoakShortTests {
    @Test(.timeLimit(.minutes(3)))
    func shortSoakKeepsEveryInvariant() throws {
        let executable = try #require(Self.executable, "latchkey-soak was not found beside the tests; run `swift build --build-tests` first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--short", "--json", "--seed", "17"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let line = try #require(text.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON report in:\n\(text)")
        let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(report.drivers.map(\.driver) == ["socialplus", "stytch", "stytch-b2b", "auth0"], "\(text)")
        for driver in report.drivers {
            #expect(driver.invariants == Invariants(), "\(driver.driver): \(text)")
            // The run really was hostile: faults, store failures, restarts, kills, bans, deletions.
            #expect(driver.faults.values.reduce(0, +) > 0, "\(driver.driver)")
            #expect(driver.counters.storeReadFaults + driver.counters.storeWriteFaults > 0, "\(driver.driver)")
            #expect(driver.counters.restarts > 0, "\(driver.driver)")
            #expect(driver.kills > 0, "\(driver.driver)")
            #expect(driver.bans + driver.deletions > 0, "\(driver.driver)")
            #expect(driver.revocations + driver.expirations > 0, "\(driver.driver)")
            #expect(driver.counters.renewalRequests > 0, "\(driver.driver)")
            #expect(driver.storesChecked > 0, "\(driver.driver)")
            #expect(driver.counters.incarnationsCompared > 0, "\(driver.driver)")
            #expect(driver.harnessFailures == 0, "\(driver.driver): \(text)")
        }
        // Auth0's stored refresh tokens were judged against the emulator's record.
        let auth0 = try #require(report.drivers.first { $0.driver == "auth0" })
        #expect(auth0.tracksRefreshTokens && auth0.refreshTokensJudged > 0, "\(text)")
    }

    struct Report: Decodable { var drivers: [Driver] }
    struct Driver: Decodable {
        var driver: String
        var faults: [String: Int]
        var counters: Counters
        var kills: Int
        var bans: Int
        var deletions: Int
        var revocations: Int
        var expirations: Int
        var tracksRefreshTokens: Bool
        var refreshTokensJudged: Int
        var storesChecked: Int
        var harnessFailures: Int
        var invariants: Invariants
    }
    struct Counters: Decodable {
        var storeReadFaults: Int
        var storeWriteFaults: Int
        var restarts: Int
        var renewalRequests: Int
        var incarnationsCompared: Int
    }
    struct Invariants: Decodable, Equatable {
        var wrongfulLogouts = 0
        var sessionsLostAtRestart = 0
        var renewalOverlaps = 0
        var streamMismatches = 0
        var undecodableStores = 0
        var secretsInLogs = 0
        var refreshTokensLost = 0
        var transitionsOffTheDiagram = 0
        var machineDisagreements = 0
    }

    static let executable: String? = {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_SOAK_EXECUTABLE"] { return path }
        var directories: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL
        directories += [bundle, bundle.deletingLastPathComponent()]
        for directory in directories {
            let candidate = directory.appendingPathComponent("latchkey-soak").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()
}
