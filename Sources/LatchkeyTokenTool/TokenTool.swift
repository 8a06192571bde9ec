import Glibc
import Latchkey
import LatchkeyBundledAdapters
import LatchkeyCLIBase
import LatchkeySessionBase

/// `latchkey-token`: `latchkey session token` while the stored token lasts, in a few
/// milliseconds — no client, no transport, no thread. The launcher runs it for
/// `latchkey session token …`; it prints the stored token when ``StoredTokens`` says a
/// client would hand it out as it is, and otherwise becomes `latchkey-full` (execv: the
/// same arguments, environment and streams), which renews, or says why not. It writes
/// nothing before that, so the full CLI's answer is the only one.
/// Benchmarks/README.md, "The CLI's start-up".
@main
enum TokenTool {
    static func main() async {
        if let token = await storedToken() {
            print(token)
            exit(0)
        }
        becomeFullCLI()
    }

    /// The stored token, when every step is one the full CLI would take silently.
    nonisolated(nonsending) static func storedToken() async -> String? {
        guard let arguments = TokenArguments(CommandLine.arguments) else { return nil }
        // A trace records the provider exchanges (the full CLI writes its file), and a
        // transport the full CLI must check: both are its to handle.
        for name in ["LATCHKEY_TRACE", "LATCHKEY_TRANSPORT"] {
            if let value = getenv(name), value.pointee != 0 { return nil }
        }
        guard let configuration = try? LatchkeyConfiguration.load(path: arguments.config) else { return nil }
        let registry = ProviderRegistry()
        for factory in BundledAdapters.factories { registry.register(factory) }
        // Warnings are printed by the full CLI, once. The registry checks the configuration
        // once, building the adapter (SessionWarnings.all would check it a second time).
        guard let store = try? configuration.store.makeStore().store,
            let (provider, warnings) = try? registry.makeProviderReportingWarnings(configuration, store: store, transport: NoRequests()),
            warnings.isEmpty, SessionWarnings.exposedSecrets(configuration, registry: registry, commandLineSettings: []).isEmpty
        else { return nil }
        guard let tokens = await StoredTokens.usable(provider: provider, store: store, options: configuration.session, minTTL: arguments.minTTL)
        else { return nil }
        // The full CLI refuses to print anything but a bearer token, and says why.
        return BearerTokenSyntax.isValid(tokens.accessToken) ? tokens.accessToken : nil
    }

    /// Becomes `latchkey-full`, beside this executable (the launcher found this one the
    /// same way); exits 70 when it cannot.
    static func becomeFullCLI() -> Never {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, Int(PATH_MAX))
        guard length > 0 else { fail("cannot find its own executable (/proc/self/exe)") }
        let own = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = own[..<(own.lastIndex(of: "/") ?? own.startIndex)]
        let full = String(directory) + "/latchkey-full"
        execv(full, CommandLine.unsafeArgv)
        fail("cannot run \(TerminalText.escape(full)): \(String(cString: strerror(errno)))")
    }

    static func fail(_ message: String) -> Never {
        let line = "error: latchkey: \(message)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(70)
    }
}

/// The transport an adapter is made with here: nothing is sent while a stored token is
/// read, and a request would be a bug.
private struct NoRequests: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw TransportError(.notConfigured, request: "\(request)", message: "latchkey-token sends no request")
    }
}
