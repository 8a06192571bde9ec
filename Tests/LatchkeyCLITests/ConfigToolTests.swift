import Foundation
import Testing

/// The build plugin's tool: checks latchkey.json with the runtime's code and the
/// adapters' schemas, and writes `LatchkeyConfiguration.bundled` as Swift that compiles.
@Suite struct ConfigToolTests {
    /// `<scratch>/debug`, where `swift build --build-tests` puts the tool and the modules.
    static let buildDirectory: URL? = {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("LatchkeyConfigTool").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    struct Run {
        var status: Int32
        var stderr: String
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stderr: String(decoding: data, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aGoodFileBecomesSwiftThatCompiles() throws {
        let build = try #require(Self.buildDirectory, "the tool is built beside the tests")
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("latchkey.json"), output = directory.appendingPathComponent("Bundled.swift")
        // Hostile text in values must stay inside its string literal.
        try Data(
            #"{"provider": "socialplus", "settings": {"region": "eu\"); fatalError(\"x", "base_url": "http://127.0.0.1:8080"}, "session": {"heartbeat_seconds": 0}}"#
                .utf8
        )
        .write(to: input)
        let result = try Self.run(build.appendingPathComponent("LatchkeyConfigTool").path, [input.path, output.path])
        // The region is not one the adapter knows, so this one must fail, naming the key.
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(input.path): error:") && result.stderr.contains("region"), "\(result.stderr)")

        try Data(
            #"{"provider": "socialplus", "settings": {"region": "eu", "base_url": "http://127.0.0.1:8080"}, "store": {"backend": "memory", "namespace": "com.example\u001b"}, "session": {"heartbeat_seconds": 0, "session_duration_minutes": 60}}"#
                .utf8
        )
        .write(to: input)
        let good = try Self.run(build.appendingPathComponent("LatchkeyConfigTool").path, [input.path, output.path])
        #expect(good.status == 0, "\(good.stderr)")
        let source = try String(contentsOf: output, encoding: .utf8)
        #expect(source.contains("static var bundled: LatchkeyConfiguration"))
        #expect(source.contains(#"com.example\\u001b"#), "the file's text, escaped inside its literal")
        // The environment's overrides apply when the app reads it, through the runtime's one parser.
        #expect(source.contains("bundled(environment: ProcessInfo.processInfo.environment)"))
        #expect(source.contains("LatchkeyConfiguration.parse(") && source.contains("environment: environment)"))
        // It compiles against the built Latchkey module.
        let swiftc = ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if let swiftc {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let typecheck = try Self.run(
                swiftc,
                [
                    "-typecheck", "-I", build.appendingPathComponent("Modules").path,
                    "-I", root.appendingPathComponent("Sources/COpenSSL").path,
                    "-I", root.appendingPathComponent("Sources/CKeyutils").path,
                    "-I", root.appendingPathComponent("Sources/CLatchkeyHMAC/include").path,
                    "-I", root.appendingPathComponent("Sources/CLatchkeyBase64/include").path,
                    "-I", root.appendingPathComponent("Sources/CLatchkeySecretService/include").path, output.path,
                ])
            #expect(typecheck.status == 0, "\(typecheck.stderr)")
        }
    }

    @Test(arguments: [
        (#"{"provider": "socialplus", "settings": {"regoin": "eu"}}"#, "settings.regoin"),
        (#"{"provider": "nope"}"#, "nope"),
        (#"{"provider": "socialplus", "settings": {"region": "eu"}, "sesion": {}}"#, "sesion"),
        (#"{"provider": "socialplus", "settings": {"region": "eu", "base_url": "ftp://x"}}"#, "settings.base_url"),
        (#"{"provider": "socialplus",}"#, "not valid JSON"),
    ])
    func aBadFileFailsTheBuildNamingTheFileAndTheKey(json: String, key: String) throws {
        let build = try #require(Self.buildDirectory)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("latchkey.json")
        try Data(json.utf8).write(to: input)
        let result = try Self.run(
            build.appendingPathComponent("LatchkeyConfigTool").path, [input.path, directory.appendingPathComponent("out.swift").path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(input.path): error:"), "\(result.stderr)")
        #expect(result.stderr.contains(key), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.swift").path))
    }
}
