// latchkey-config: checks a latchkey.json with the runtime's own code and the linked
// adapters' settings schemas, and writes the `LatchkeyConfiguration.bundled` source.
//
//   latchkey-config <latchkey.json> <output.swift>
//
// Diagnostics use the compiler's `file: error: message` form so the build shows them
// against the file. Exit status 1 on any error.
import Foundation
import Latchkey

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: latchkey-config <latchkey.json> <output.swift>\n".utf8))
    exit(2)
}
let (input, output) = (arguments[1], arguments[2])

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(input): error: \(message)\n".utf8))
    exit(1)
}

guard let data = FileManager.default.contents(atPath: input) else { fail("cannot read the file") }
let registry = ProviderRegistry()
for factory in BundledAdapters.factories { registry.register(factory) }
do {
    // The build's environment must not leak into the app: the file alone is checked.
    let configuration = try LatchkeyConfiguration.parse(Array(data), source: input, environment: [:])
    for warning in try registry.check(configuration) {
        FileHandle.standardError.write(Data("\(input): warning: \(warning)\n".utf8))
    }
    let source = ConfigurationSource.swift(for: configuration, from: input)
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch let error as AuthError {
    fail(error.message.hasPrefix(input + ": ") ? String(error.message.dropFirst(input.count + 2)) : error.message)
} catch {
    fail("\(error)")
}
