// latchkey-config: checks a latchkey.json with the runtime's own code — the parser, the
// linked adapters' settings schemas, and the adapter's own construction — and writes
// the `LatchkeyConfiguration.bundled` source.
//
//   latchkey-config <latchkey.json> <output.swift>
//
// Diagnostics use the compiler's `file: error: message` form so the build shows them
// against the file. Exit status 1 on any error. Required secrets may be absent from the
// file (they come from the environment when the app runs).
import Foundation
import Latchkey
import LatchkeyBundledAdapters
import LatchkeySecrets

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

/// The adapter is built but never talks to anybody at build time.
struct OfflineTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw TransportError(.cannotConnect, request: "\(request)", message: "no network at build time")
    }
}

guard let data = FileManager.default.contents(atPath: input) else { fail("cannot read the file") }
let registry = ProviderRegistry()
for factory in BundledAdapters.factories { registry.register(factory) }
do {
    // The build's environment must not leak into the app: the file alone is checked.
    let configuration = try LatchkeyConfiguration.parse(Array(data), source: input, environment: [:])
    for warning in try registry.check(configuration, deferringSecrets: true) {
        FileHandle.standardError.write(Data("\(input): warning: \(warning)\n".utf8))
    }
    // Build the adapter as the runtime would (its own checks of the values), with
    // placeholders for the secrets the environment will give.
    var probe = configuration
    for key in registry.factory(for: configuration.provider)?.schema.keys ?? [] where key.isSecret && probe.settings[key.name] == nil {
        probe.settings.values[key.name] = "build-time-placeholder"
    }
    _ = try registry.makeProvider(probe, store: MemorySecretStore(namespace: "latchkey-config"), transport: OfflineTransport())
    let source = ConfigurationSource.swift(json: String(decoding: data, as: UTF8.self), from: input)
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch let error as AuthError {
    fail(error.message.hasPrefix(input + ": ") ? String(error.message.dropFirst(input.count + 2)) : error.message)
} catch {
    fail("\(error)")
}
