import PackagePlugin

/// For a target with a `latchkey.json` among its sources: checks the file at build time
/// with the runtime's own code (a bad file fails the build, naming the file, the key and
/// what is wrong) and generates `LatchkeyConfiguration.bundled` from it.
@main
struct LatchkeyConfigPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.filter { $0.url.lastPathComponent == "latchkey.json" }
        guard let file = files.first else { return [] }
        let tool = try context.tool(named: "LatchkeyConfigTool")
        let output = context.pluginWorkDirectoryURL.appending(path: "LatchkeyConfiguration+Bundled.swift")
        return [
            .buildCommand(
                displayName: "Checking \(file.url.lastPathComponent) and generating LatchkeyConfiguration.bundled",
                executable: tool.url, arguments: [file.url.path(), output.path()],
                inputFiles: [file.url], outputFiles: [output])
        ]
    }
}
