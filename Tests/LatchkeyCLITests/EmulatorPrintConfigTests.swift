import Foundation
import Testing

/// `latchkey emulator --print-config PROVIDER`: the configuration it prints logs in to
/// the emulator it describes, as is, with the session commands.
@Suite struct EmulatorPrintConfigTests {
    private struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The first line the emulator prints, or a failure after `timeout`.
    private func firstLine(of handle: FileHandle, timeout: Duration) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                var data = Data()
                while !data.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { throw Failure(description: "the emulator exited before it was ready") }
                    data.append(chunk)
                }
                return String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Failure(description: "the emulator printed nothing within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? ""
        }
    }

    @Test(arguments: [
        ("stytch", ["login", "--email", "alice@example.com", "--password-stdin"], "alice-password-1\n"),
        (
            "auth0", ["login", "--username", "alice@example.com", "--realm", "Username-Password-Authentication", "--password-stdin"],
            "alice-password-1\n"
        ),
        ("socialplus", ["login", "--user-id", "alice"], ""),
    ])
    func thePrintedConfigurationLogsIn(provider: String, login: [String], stdin: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try JWTCLIRunner().executablePath())
        process.arguments = ["emulator", "--providers", provider, "--print-config", provider]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let line = try await firstLine(of: output.fileHandleForReading, timeout: .seconds(60))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-print-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("latchkey.json")
        try Data(line.utf8).write(to: config)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config.path)
        let environment = [
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        let result = try await runOffThePool(["session"] + login + ["--config", config.path], stdin: stdin, environment: environment)
        #expect(result.status == 0, "\(line)\n\(result.stderr)")
        // social.plus's API key is a secret setting: the CLI says so even for the emulator's, as it would for a real one.
        #expect(provider == "socialplus" || !result.stderr.contains("warning"), "\(result.stderr)")
        let status = try await runOffThePool(["session", "status", "--config", config.path], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test func aProviderTheEmulatorDoesNotRunIsAUsageError() async throws {
        let result = try await runOffThePool(["emulator", "--providers", "auth0", "--print-config", "stytch-b2b"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: latchkey emulator: --print-config stytch-b2b needs stytch"), "\(result.stderr)")
    }
}
