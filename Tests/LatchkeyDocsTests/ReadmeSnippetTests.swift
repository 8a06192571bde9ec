import Foundation
import Testing

/// Every Swift snippet in README.md compiles: its code is in ReadmeSnippets.swift (which
/// this target compiles), and the manifest snippet is a manifest SwiftPM loads.
@Suite struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func swiftBlocks() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [String] = [], current: [String]? = nil
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = [] } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil { current!.append(String(line)) }
        }
        return blocks
    }

    static func isHeader(_ line: Substring) -> Bool {
        line.hasPrefix("import ") || line.hasPrefix("#if canImport") || line == "#endif"
    }

    @Test func everyCodeBlockIsCompiledVerbatim() throws {
        let snippets = try String(contentsOf: Self.root.appendingPathComponent("Tests/LatchkeyDocsTests/ReadmeSnippets.swift"), encoding: .utf8)
        let snippetLines = snippets.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let blocks = try Self.swiftBlocks().filter { !$0.hasPrefix("// swift-tools-version") }
        #expect(blocks.count >= 8)
        for block in blocks {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            for header in lines where Self.isHeader(header) {
                #expect(snippetLines.contains(String(header)), "README import not compiled: \(header)")
            }
            let code = lines.filter { !Self.isHeader($0) }.map { $0.trimmingCharacters(in: .whitespaces) }
            let start = code.first { !$0.isEmpty } ?? ""
            let found = snippetLines.indices.contains { index in
                index + code.count <= snippetLines.count && Array(snippetLines[index ..< index + code.count]) == code
            }
            #expect(found, "README block starting \"\(start)\" is not in ReadmeSnippets.swift as written")
        }
    }

    @Test func theManifestSnippetLoads() throws {
        let manifest = try #require(try Self.swiftBlocks().first { $0.hasPrefix("// swift-tools-version") })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-readme-\(UUID().uuidString)")
        let app = directory.appendingPathComponent("MyApp")
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/MyApp"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data("print(1)\n".utf8).write(to: app.appendingPathComponent("Sources/MyApp/main.swift"))
        // The path dependency `../latchkey` is this checkout.
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("latchkey"), withDestinationURL: Self.root)
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
        #expect(text.contains("LatchkeyConfigPlugin") && text.contains("\"latchkey\""), "\(text.prefix(400))")
    }
}
