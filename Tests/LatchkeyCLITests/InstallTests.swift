import Foundation
import Testing

/// `make install PREFIX=…` and `make uninstall` in a temporary prefix, with the debug
/// binary (`BIN=`) so nothing is built in release mode here.
@Suite struct InstallTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func make(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["make", "--no-print-directory", "-C", Self.root.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// A man page made from `latchkey` by swift-argument-parser's generator, when the
    /// generate-manual plugin's tool has been built (any `swift package plugin
    /// generate-manual` run); nil otherwise.
    private func manualPage(for latchkey: String, into directory: URL) throws -> URL? {
        let tool = URL(fileURLWithPath: latchkey).deletingLastPathComponent().appendingPathComponent("generate-manual-tool")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { return nil }
        let process = Process()
        process.executableURL = tool
        process.arguments = [latchkey, "--output-directory", directory.path]
        try process.run()
        process.waitUntilExit()
        let page = directory.appendingPathComponent("latchkey.1")
        return FileManager.default.fileExists(atPath: page.path) ? page : nil
    }

    @Test func installsAndUninstallsTheBinaryManPageAndCompletions() throws {
        let latchkey = try JWTCLIRunner().executablePath()
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let work = prefix.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let generated = try manualPage(for: latchkey, into: work)
        let page: URL
        if let generated {
            page = generated
        } else {
            // The generator's tool is built by the plugin, which cannot run while tests hold the build.
            page = work.appendingPathComponent("latchkey.1")
            try Data(".Dt LATCHKEY 1\n".utf8).write(to: page)
        }
        let installed = prefix.appendingPathComponent("root")
        let install = try make(["install", "PREFIX=\(installed.path)", "BIN=\(latchkey)", "MAN=\(page.path)"])
        #expect(install.status == 0, "\(install.output)")

        let files = [
            "bin/latchkey", "libexec/latchkey/latchkey-full", "share/man/man1/latchkey.1", "share/bash-completion/completions/latchkey",
            "share/zsh/site-functions/_latchkey", "share/fish/vendor_completions.d/latchkey.fish",
            "libexec/latchkey/latchkey-jwt", "libexec/latchkey/latchkey-token",
        ]
        for file in files { #expect(FileManager.default.fileExists(atPath: installed.appendingPathComponent(file).path), "\(file)") }
        #expect(FileManager.default.isExecutableFile(atPath: installed.appendingPathComponent("bin/latchkey").path))
        #expect(FileManager.default.isExecutableFile(atPath: installed.appendingPathComponent(files[1]).path))
        // The installed launcher finds its tools in ../libexec/latchkey, also through a link elsewhere.
        let link = work.appendingPathComponent("latchkey")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: installed.appendingPathComponent("bin/latchkey").path)
        let version = try JWTCLIRunner().run(["--version"], executable: link.path)
        #expect(version.status == 0 && version.stdout == "0.1.0\n", "\(version)")
        #expect(FileManager.default.isExecutableFile(atPath: installed.appendingPathComponent(files[6]).path))
        let inspect = try JWTCLIRunner().run(["inspect", "--json", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0."], executable: link.path)
        #expect(inspect.status == 0 && inspect.stdout.contains("\"sub\":\"a\""), "\(inspect)")
        // `session token` runs the installed latchkey-token, which hands a command line it
        // cannot answer (no configuration here) to the installed latchkey-full beside it.
        #expect(FileManager.default.isExecutableFile(atPath: installed.appendingPathComponent(files[7]).path))
        let token = try JWTCLIRunner().run(
            ["session", "token"], environment: ["LATCHKEY_CONFIG": work.appendingPathComponent("absent.json").path], executable: link.path)
        #expect(token.status != 0 && token.status != 70, "\(token)")
        #expect(token.stderr.contains("absent.json") && !token.stderr.contains("cannot run"), "\(token.stderr)")
        let man = try String(contentsOf: installed.appendingPathComponent(files[2]), encoding: .utf8)
        #expect(man.contains(".Dt LATCHKEY 1"))
        if generated != nil { #expect(man.contains("session"), "the page covers the subcommands") }
        #expect(try String(contentsOf: installed.appendingPathComponent(files[3]), encoding: .utf8).contains("latchkey"))
        #expect(try String(contentsOf: installed.appendingPathComponent(files[4]), encoding: .utf8).hasPrefix("#compdef latchkey"))
        #expect(try String(contentsOf: installed.appendingPathComponent(files[5]), encoding: .utf8).contains("complete -c 'latchkey'"))

        let uninstall = try make(["uninstall", "PREFIX=\(installed.path)"])
        #expect(uninstall.status == 0, "\(uninstall.output)")
        for file in files { #expect(!FileManager.default.fileExists(atPath: installed.appendingPathComponent(file).path), "\(file) removed") }
        #expect(!FileManager.default.fileExists(atPath: installed.appendingPathComponent("libexec/latchkey").path), "its directory removed")
    }

    @Test func aMissingBinaryFailsTheInstall() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let result = try make(["install", "PREFIX=\(prefix.path)", "BIN=/nonexistent/latchkey", "MAN=/nonexistent/latchkey.1"])
        #expect(result.status != 0)
        #expect(result.output.contains("no latchkey binary"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("bin/latchkey").path))
    }
}
