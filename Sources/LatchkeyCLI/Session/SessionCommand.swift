import ArgumentParser
import AsyncHTTPClient
import Foundation
import Latchkey
import LatchkeyAsyncHTTPClient
import LatchkeyBundledAdapters
import LatchkeyCLIBase
import LatchkeySessionBase

/// `latchkey session`: the whole life of a session from the command line — log in,
/// look, get a token, renew, log out — with the app's own `latchkey.json`.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Log in, inspect, renew and log out of a session with the configured provider.",
        discussion: """
            The provider, its settings and the store come from latchkey.json (--config, $LATCHKEY_CONFIG, or ./latchkey.json) \
            and LATCHKEY_* environment variables; --provider, --setting, --backend and --namespace override them (a provider \
            other than the file's takes none of the file's settings). ./latchkey.json is used only when \
            it is yours and writable by no one else; name a file with --config to pin it. A stored session is used only with \
            the endpoint that made it (provider, base URL, public token / client ID / API key). Every subcommand takes --json: \
            one JSON object on standard output, errors included ({"error": {...}, "exit_status": N}).

            \(SessionExitStatus.help)
            """,
        subcommands: [Login.self, Status.self, Token.self, Refresh.self, Logout.self]
    )
}

extension SessionCommand {
    /// Options every session subcommand shares.
    struct ClientOptions: ParsableArguments {
        @Option(
            name: .long, help: "The configuration file (default: $LATCHKEY_CONFIG, else ./latchkey.json if it is yours and not writable by others).")
        var config: String?

        @Option(name: .long, help: "The provider identifier, overriding the file (stytch, stytch-b2b, auth0, socialplus).")
        var provider: String?

        @Option(name: .long, help: ArgumentHelp("A provider setting, overriding the file (repeatable).", valueName: "name=value"))
        var setting: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The store backend, overriding the file (automatic, keyring, file, layered, memory, secret-service).", valueName: "backend"))
        var backend: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The store namespace, overriding the file: one app's or one account's sessions.",
                valueName: "namespace"))
        var namespace: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Record every HTTP exchange with the provider in FILE as HAR 1.2 (mode 600), every "
                    + "token, password, code and key replaced by a marker (default: $LATCHKEY_TRACE).",
                valueName: "file"))
        var trace: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The HTTP transport to the provider: async-http-client (SwiftNIO's, the default) or urlsession "
                    + "(Foundation's, in builds with the URLSession trait) (default: $LATCHKEY_TRANSPORT).",
                valueName: "transport"))
        var transport: String?

        func validate() throws {
            if let backend, StoreSettings.Backend(rawValue: backend) == nil {
                throw ValidationError(
                    "--backend takes one of \(StoreSettings.Backend.allCases.map(\.rawValue).joined(separator: ", ")); "
                        + "got \"\(TerminalText.escape(backend))\"")
            }
            if namespace?.isEmpty == true { throw ValidationError("--namespace takes a name; got an empty one") }
            if let transport, TransportChoice(rawValue: transport) == nil {
                throw ValidationError(
                    "--transport takes one of \(TransportChoice.allCases.map(\.rawValue).joined(separator: ", ")); "
                        + "got \"\(TerminalText.escape(transport))\"")
            }
            for item in setting where Self.splitSetting(item) == nil {
                throw ValidationError("--setting takes name=value; got \"\(TerminalText.escape(item))\"")
            }
        }

        /// `name=value` split at the first `=` byte. Bytes, not characters: `=` followed
        /// by a combining mark or a zero-width joiner is one character with the next, so a
        /// character-wise split would find no `=` in text that contains one.
        static func splitSetting(_ item: String) -> (name: String, value: String)? {
            let bytes = Array(item.utf8)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals > 0 else { return nil }
            return (String(decoding: bytes[..<equals], as: UTF8.self), String(decoding: bytes[(equals + 1)...], as: UTF8.self))
        }

        /// The configuration: the file, the environment, then these options.
        func configuration() throws -> LatchkeyConfiguration {
            var environment = ProcessInfo.processInfo.environment
            if let provider { environment["LATCHKEY_PROVIDER"] = provider }
            if let backend { environment["LATCHKEY_STORE_BACKEND"] = backend }
            if let namespace { environment["LATCHKEY_STORE_NAMESPACE"] = namespace }
            for item in setting {
                guard let (name, value) = Self.splitSetting(item) else { throw ValidationError("--setting takes name=value") }
                environment[ProviderSettings.environmentName(of: name)] = value
            }
            do {
                return try LatchkeyConfiguration.load(path: config, environment: environment)
            } catch {
                throw SessionFailure.configuration(error.message)
            }
        }

        /// A client for the configuration, with the adapters this tool links; no
        /// heartbeat or background renewal (a command runs and exits). The
        /// configuration's warnings go to standard error first.
        func makeClient() throws -> (AuthClient, LatchkeyConfiguration) {
            var configuration = try configuration()
            configuration.session.heartbeatInterval = nil
            configuration.session.renewsProactively = false
            let registry = ProviderRegistry()
            for factory in BundledAdapters.factories { registry.register(factory) }
            do {
                let settings = setting.compactMap { Self.splitSetting($0)?.name }
                for warning in try SessionWarnings.all(configuration, registry: registry, commandLineSettings: settings) {
                    printError("warning: " + warning)
                }
                return (try registry.makeClient(configuration, transport: try providerTransport()), configuration)
            } catch let error as AuthError {
                throw SessionFailure(error, loggingIn: false)
            }
        }

        /// The transport to the provider: the chosen one (--transport, $LATCHKEY_TRANSPORT;
        /// AsyncHTTPClient by default, which loads no shared library at start, where
        /// URLSession's libcurl loads some thirty), under the recorder with --trace or
        /// $LATCHKEY_TRACE, under the usual retries (so every attempt is recorded).
        func providerTransport() throws -> any HTTPTransport {
            let environment = ProcessInfo.processInfo.environment
            let name = transport ?? environment["LATCHKEY_TRANSPORT"].flatMap { $0.isEmpty ? nil : $0 }
            guard let choice = TransportChoice(rawValue: name ?? TransportChoice.asyncHTTPClient.rawValue) else {
                throw SessionFailure.configuration(
                    "LATCHKEY_TRANSPORT takes \(TransportChoice.allCases.map(\.rawValue).joined(separator: " or ")); "
                        + "got \"\(TerminalText.escape(name ?? ""))\"")
            }
            let path = trace ?? environment["LATCHKEY_TRACE"]
            let tracing = path.map { !$0.isEmpty } ?? false
            let base = choice.makeTransport()
            guard tracing, let path else { return RetryingTransport(base) }
            do {
                return RetryingTransport(try HARRecordingTransport(base, path: path))
            } catch {
                throw SessionFailure(status: SessionExitStatus.storage, code: "trace", message: "\(error)")
            }
        }

        /// Says on standard error why a stored session was left unused (made with another
        /// endpoint), so "not logged in" is not a mystery.
        func reportStoredSessionConflict(of client: AuthClient) async {
            if let conflict = await client.storedSessionConflict { printError("warning: " + conflict.message) }
        }
    }
}

extension SessionCommand {
    /// Prints a usage error of `latchkey session … --json` as its JSON object (the
    /// message stays on standard error as well); does nothing otherwise.
    static func reportUsageErrorAsJSON(_ error: any Error, message: String, status: Int32) {
        // A failure while running was printed by SessionRun already: one object per run.
        guard !(error is ExitCode) else { return }
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "session", arguments.contains("--json"), status == SessionExitStatus.usage else { return }
        var line = message.split(separator: "\n").first.map(String.init) ?? message
        if line.hasPrefix("Error: ") { line.removeFirst("Error: ".count) }
        let failure = SessionFailure.usage(line)
        SessionRun.printJSON(["error": .object(failure.object), "exit_status": .number(Double(status))])
    }
}

/// The transports `latchkey session --transport` offers.
enum TransportChoice: String, CaseIterable {
    #if URLSession
    case urlSession = "urlsession"
    #endif
    case asyncHTTPClient = "async-http-client"

    /// One attempt per call; the caller adds the retries.
    func makeTransport() -> any HTTPTransport {
        switch self {
        #if URLSession
        case .urlSession: DefaultTransport.makeSingleAttempt()
        #endif
        case .asyncHTTPClient: FirstUseTransport()
        }
    }
}

/// AsyncHTTPClient, made at the first request: a command that sends none (`session token`
/// with a token that needs no renewal, `session status` of a stored session) never starts
/// SwiftNIO's event loop threads.
struct FirstUseTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await Self.transport.send(request)
    }

    /// One client for the process (Swift makes a static `let` once, on first use), with the
    /// transport's recommended configuration (no redirects followed, no decoding by the
    /// client) on SwiftNIO's shared event loops; never shut down, as the process ends first.
    private static let transport = AsyncHTTPClientTransport(
        client: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration()))
}
