import Foundation
import Latchkey
import Testing

/// Every Swift snippet of the README and of the reference pages it sends readers to is
/// compiled, and the README's quick starts run: each block is in a Swift file of this
/// target as written (ReadmeSnippets.swift: the README's, run below; MovedSnippets.swift:
/// the reference pages', compiled), and the README's manifest is a manifest SwiftPM loads
/// that names every product the README's snippets import.
@Suite struct DocumentSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The pages whose Swift blocks this target compiles, and how many blocks each has
    /// (a block added to a page must be added here and to a snippet file).
    static let documents: [(path: String, blocks: Int)] = [
        ("README.md", 3),
        ("Docs/real-providers.md", 4),
        ("Docs/emulator.md", 1),
        ("Docs/telemetry.md", 2),
        ("Sources/Latchkey/Latchkey.docc/SessionsAndState.md", 1),
        ("Sources/Latchkey/Latchkey.docc/StorageAndSecurity.md", 1),
        ("Sources/Latchkey/Latchkey.docc/VerifyingAndSigningTokens.md", 2),
    ]

    static func swiftBlocks(in path: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var blocks: [String] = [], current: [String]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(String(line))
            }
        }
        return blocks
    }

    static func isManifest(_ block: String) -> Bool { block.hasPrefix("// swift-tools-version") }

    static func isHeader(_ line: Substring) -> Bool {
        line.hasPrefix("import ") || line.hasPrefix("#if canImport") || line == "#endif"
    }

    /// Each Swift file of this target, as trimmed lines.
    static func snippetFiles() throws -> [(name: String, lines: [String])] {
        let folder = root.appendingPathComponent("Tests/LatchkeyDocsTests")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return (name, text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) })
        }
    }

    @Test(arguments: documents.map(\.path))
    func everyCodeBlockIsCompiledVerbatim(path: String) throws {
        let files = try Self.snippetFiles()
        let blocks = try Self.swiftBlocks(in: path).filter { !Self.isManifest($0) }
        #expect(blocks.count == Self.documents.first { $0.path == path }?.blocks, "\(path) has \(blocks.count) Swift blocks")
        for block in blocks {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            // The code without its imports, and without the blank line that follows them.
            let code = Array(lines.filter { !Self.isHeader($0) }.map { $0.trimmingCharacters(in: .whitespaces) }.drop { $0.isEmpty })
            let start = code.first { !$0.isEmpty } ?? ""
            let home = files.first { file in
                file.lines.indices.contains { index in
                    index + code.count <= file.lines.count && Array(file.lines[index..<index + code.count]) == code
                }
            }
            #expect(home != nil, "\(path): the block starting \"\(start)\" is in no Swift file of LatchkeyDocsTests as written")
            for header in lines where Self.isHeader(header) {
                #expect(home?.lines.contains(String(header)) ?? false, "\(path): \(header) is not compiled with its block")
            }
        }
    }

    @Test func theReadmeManifestNamesEveryProductItsSnippetsImport() throws {
        let blocks = try Self.swiftBlocks(in: "README.md")
        let manifest = try #require(blocks.first(where: Self.isManifest))
        let imported = Set(
            blocks.filter { !Self.isManifest($0) }.flatMap { $0.split(separator: "\n") }
                .filter { $0.hasPrefix("import Latchkey") }.map { $0.dropFirst("import ".count).trimmingCharacters(in: .whitespaces) })
        #expect(imported.count >= 5)
        for module in imported.sorted() {
            #expect(manifest.contains(".product(name: \"\(module)\", package: latchkey)"), "the manifest lacks \(module)")
        }
    }

    /// The manifest loads beside a checkout named as in the README and beside one named
    /// otherwise (the one line a reader edits, the path, changed): the products are named
    /// after the path's last component, never a fixed name.
    @Test(arguments: ["latchkey", "Latchkey-Checkout_2"])
    func theManifestSnippetLoads(folder: String) throws {
        let snippet = try #require(try Self.swiftBlocks(in: "README.md").first(where: Self.isManifest))
        let manifest = snippet.replacingOccurrences(of: "let latchkeyPath = \"../latchkey\"", with: "let latchkeyPath = \"../\(folder)\"")
        #expect(manifest.contains("\"../\(folder)\""))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-readme-\(UUID().uuidString)")
        let app = directory.appendingPathComponent("MyApp")
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/MyApp"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data("print(1)\n".utf8).write(to: app.appendingPathComponent("Sources/MyApp/main.swift"))
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(folder), withDestinationURL: Self.root)
        let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(swift))
        process.arguments = ["package", "--package-path", app.path, "dump-package"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let dumped = output.fileHandleForReading.readDataToEndOfFile()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(problems)")
        let text = String(decoding: dumped, as: UTF8.self)
        #expect(text.contains("LatchkeyConfigPlugin") && text.contains("\"\(folder)\""), "\(text.prefix(400))")
    }

    // MARK: The README's quick starts, run against the emulator they start

    @Test func theStytchQuickstartRuns() async throws {
        let (email, sessionID) = try await readmeStytchQuickstart()
        #expect(email == "alice@example.com")
        #expect(sessionID != nil)
    }

    @Test func theAuth0QuickstartRenewsAnExpiredToken() async throws {
        let (renewed, state) = try await readmeAuth0Quickstart()
        #expect(renewed)
        #expect(state == .notLoggedIn || state == .established)
    }

    @Test func theSocialPlusQuickstartRuns() async throws {
        #expect(try await readmeSocialPlusQuickstart() == .notLoggedIn)
    }
}
