import Foundation
import LatchkeyJSON
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey emulator`, end to end: the built executable starts, prints one JSON line
/// when ready, serves over loopback, and stops cleanly on SIGTERM and SIGINT.
@Suite struct EmulatorCLITests {
    @Test(arguments: [SIGTERM, SIGINT])
    func startsServesAndStopsOnSignal(signal: Int32) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["emulator", "--json", "--providers", "auth0,socialplus"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let line = try await Self.firstLine(of: output.fileHandleForReading, timeout: .seconds(60))
        guard case .object(let summary) = try JSONValue.parse(line) else { throw CLIEmulatorError("not a JSON object: \(line)") }
        #expect(summary.names == ["providers", "control"])
        let providers = try #require(summary["providers"]?.objectValue)
        #expect(providers.names == ["auth0", "socialplus"])
        #expect(providers["auth0"]?["clientID"] == "latchkey-emulator-client")
        #expect(providers["auth0"]?["users"]?.arrayValue?.first?["password"] == "alice-password-1")
        let socialPlus = try #require(providers["socialplus"]?.objectValue)
        let base = try #require(socialPlus["baseURL"]?.stringValue.flatMap(URL.init(string:)))
        #expect(base.host() == "127.0.0.1")

        var request = URLRequest(url: base.appending(path: "api/v5/sessions"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(socialPlus["apiKey"]?.stringValue, forHTTPHeaderField: "X-API-Key")
        request.httpBody = Data(#"{"userId":"alice","deviceId":"d","deviceInfo":{"kind":"web"}}"#.utf8)
        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("accessToken"))
        session.invalidateAndCancel()

        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
        // Exactly one line on standard output.
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.isEmpty, "\(rest)")

        // The port is free again.
        let probe = URLSession(configuration: .ephemeral)
        await #expect(throws: (any Error).self) { _ = try await probe.data(from: base.appending(path: "__emulator/health")) }
    }

    @Test func usageErrors() throws {
        for arguments in [["emulator", "--providers", "okta"], ["emulator", "--port", "70000"], ["emulator", "--providers", ""]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.executable())
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 64, "\(arguments)")
        }
    }

    /// Reads up to the first newline, failing after `timeout`.
    private static func firstLine(of handle: FileHandle, timeout: Duration) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                var data = Data()
                while !data.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { throw CLIEmulatorError("the emulator exited before it was ready") }
                    data.append(chunk)
                }
                return String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw CLIEmulatorError("the emulator printed nothing within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? ""
        }
    }

    /// `$LATCHKEY_EXECUTABLE`, or `latchkey` beside the test bundle.
    private static func executable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_EXECUTABLE"] { return path }
        var directories: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        directories += [
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        for directory in directories {
            let candidate = directory.appendingPathComponent("latchkey").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        throw CLIEmulatorError("the latchkey executable was not found beside the tests; run `swift build --build-tests` first")
    }
}

private struct CLIEmulatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
