import ArgumentParser
import Dispatch
import Foundation
import LatchkeyCLIBase
import LatchkeyEmulator
import LatchkeyJSON

extension LatchkeyCommand {
    /// `latchkey emulator`: run the Stytch, Auth0 and social.plus emulators in the foreground.
    struct EmulatorCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "emulator",
            abstract: "Run local emulators of the Stytch, Auth0 and social.plus APIs until interrupted.",
            discussion: """
                Each provider listens on 127.0.0.1 on its own port (ephemeral unless --port is given: then \
                the providers take --port, --port+1, ... in the order of --providers) with the real service's \
                paths. The control API answers under /__emulator/ on every port. Prints the base URLs, the \
                seeded users and their credentials, and the public token / client ID / API keys to use; with \
                --json, exactly one JSON line once every server is ready. SIGINT or SIGTERM stops it (exit 0).
                """)

        @Option(help: ArgumentHelp("The providers to run, comma-separated.", valueName: "stytch,auth0,socialplus"))
        var providers: String = "stytch,auth0,socialplus"

        @Option(help: ArgumentHelp("The first provider's port (0 or absent: ephemeral ports).", valueName: "port"))
        var port: Int?

        @Option(
            help: ArgumentHelp(
                "A seed file (JSON): users, credentials and settings; providers left out keep the standard seed.",
                valueName: "file"))
        var seed: String?

        @Flag(help: "Print one JSON line once ready, instead of text.")
        var json = false

        @Option(
            name: .customLong("print-config"),
            help: ArgumentHelp(
                "Once ready, print a latchkey.json for this emulator and PROVIDER (stytch, stytch-b2b, auth0, "
                    + "socialplus) instead of the summary; with --format env, export lines.", valueName: "provider"))
        var printConfig: String?

        @Option(help: ArgumentHelp("What --print-config prints: json (one line) or env (export lines for a shell).", valueName: "json|env"))
        var format: String = "json"

        func validate() throws {
            let running = try parsedProviders()
            if let printConfig {
                guard let needed = EmulatorConfig.emulated(printConfig) else {
                    throw ValidationError("--print-config takes stytch, stytch-b2b, auth0 or socialplus; got \"\(TerminalText.escape(printConfig))\"")
                }
                guard running.contains(needed) else { throw ValidationError("--print-config \(printConfig) needs \(needed.rawValue) in --providers") }
            }
            guard ["json", "env"].contains(format) else { throw ValidationError("--format takes json or env") }
            if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        }

        private func parsedProviders() throws -> [EmulatorProvider] {
            let names = providers.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard !names.isEmpty else { throw ValidationError("--providers needs at least one of stytch, auth0, socialplus") }
            return try names.map { name in
                guard let provider = EmulatorProvider(rawValue: name == "social.plus" ? "socialplus" : name) else {
                    throw ValidationError("unknown provider \"\(name)\" (stytch, auth0, socialplus)")
                }
                return provider
            }
        }

        func run() async throws {
            var options = EmulatorOptions(providers: try parsedProviders(), port: port == 0 ? nil : port)
            if let seed {
                do {
                    options.seed = try EmulatorSeed(json: Data(contentsOf: URL(fileURLWithPath: seed)))
                } catch {
                    throw fail("cannot read the seed file \(seed): \(error)")
                }
            }
            let signals = SignalWaiter([SIGINT, SIGTERM])
            let emulator: Emulator
            do {
                emulator = try await Emulator.start(options)
            } catch {
                throw fail("\(error)")
            }
            if let printConfig {
                print(format == "env" ? EmulatorConfig.exports(printConfig, emulator) : EmulatorConfig.json(printConfig, emulator).jsonText)
            } else {
                print(json ? Self.summary(emulator).jsonText : Self.text(emulator))
            }
            fflush(nil)
            let received = await signals.next()
            await emulator.stop()
            if !json { printError("emulator stopped (\(received == SIGINT ? "SIGINT" : "SIGTERM"))") }
        }

        // MARK: Output

        /// Everything a script needs, as one JSON object.
        static func summary(_ emulator: Emulator) -> JSONValue {
            var providers = JSONObject()
            if let stytch = emulator.stytch {
                let seed = emulator.seed.stytch
                providers["stytch"] = .object([
                    "baseURL": .string(stytch.baseURL.absoluteString), "sdkBaseURL": .string(stytch.sdkBaseURL.absoluteString),
                    "jwksURL": .string(stytch.jwksURL.absoluteString), "b2bJWKSURL": .string(stytch.b2bJWKSURL.absoluteString),
                    "projectID": .string(stytch.projectID), "publicToken": .string(stytch.publicToken),
                    "appIdentifiers": .array(seed.authorizedAppIdentifiers.map { .string($0) }),
                    "users": .array(
                        seed.users.map { .object(["userID": .string($0.userID), "email": .string($0.email), "password": .string($0.password)]) }),
                    "organizations": .array(
                        seed.organizations.map { organization in
                            .object([
                                "organizationID": .string(organization.organizationID), "slug": .string(organization.slug),
                                "members": .array(
                                    organization.members.map {
                                        .object([
                                            "memberID": .string($0.memberID), "email": .string($0.email), "password": .string($0.password),
                                            "mfaRequired": .bool($0.mfaRequired ?? false),
                                        ])
                                    }),
                            ])
                        }),
                ])
            }
            if let auth0 = emulator.auth0 {
                providers["auth0"] = .object([
                    "baseURL": .string(auth0.baseURL.absoluteString), "domain": .string(auth0.domain), "issuer": .string(auth0.issuer),
                    "clientID": .string(auth0.clientID), "connection": .string(auth0.connection), "jwksURL": .string(auth0.jwksURL.absoluteString),
                    "users": .array(
                        emulator.seed.auth0.users.map {
                            .object([
                                "userID": .string($0.userID), "email": .string($0.email), "password": .string($0.password),
                                "mfaRequired": .bool($0.mfaRequired ?? false),
                            ])
                        }),
                ])
            }
            if let socialPlus = emulator.socialPlus {
                let seed = emulator.seed.socialPlus
                providers["socialplus"] = .object([
                    "baseURL": .string(socialPlus.baseURL.absoluteString), "apiKey": .string(socialPlus.apiKey),
                    "serverKey": .string(socialPlus.serverKey), "secureMode": .bool(socialPlus.secureMode),
                    "accessTokenSecret": .string(seed.accessTokenSecret),
                    "users": .array(seed.users.map { .object(["userID": .string($0.userID), "displayName": .string($0.displayName ?? $0.userID)]) }),
                ])
            }
            var summary: JSONObject = ["providers": .object(providers)]
            if let first = emulator.providers.first.flatMap(emulator.baseURL(for:)) {
                summary["control"] = .string(first.appending(path: "__emulator/").absoluteString)
            }
            return .object(summary)
        }

        /// The same for people.
        static func text(_ emulator: Emulator) -> String {
            var lines: [String] = []
            if let stytch = emulator.stytch {
                lines.append(Colour.bold("Stytch") + "      \(stytch.sdkBaseURL.absoluteString)")
                lines.append("  public token   \(stytch.publicToken)")
                lines.append("  app identifier \(emulator.seed.stytch.authorizedAppIdentifiers.joined(separator: ", "))   (settings.app_identifier)")
                lines.append("  project        \(stytch.projectID)   JWKS \(stytch.jwksURL.absoluteString)")
                for user in emulator.seed.stytch.users { lines.append("  user           \(user.email) / \(user.password)") }
                for organization in emulator.seed.stytch.organizations {
                    lines.append("  organization   \(organization.slug) (\(organization.organizationID))")
                    for member in organization.members {
                        lines.append("    member       \(member.email) / \(member.password)\(member.mfaRequired == true ? "  (MFA required)" : "")")
                    }
                }
            }
            if let auth0 = emulator.auth0 {
                lines.append(Colour.bold("Auth0") + "       \(auth0.baseURL.absoluteString)")
                lines.append("  client ID      \(auth0.clientID)   realm \(auth0.connection)")
                for user in emulator.seed.auth0.users {
                    lines.append("  user           \(user.email) / \(user.password)\(user.mfaRequired == true ? "  (MFA required)" : "")")
                }
            }
            if let socialPlus = emulator.socialPlus {
                lines.append(Colour.bold("social.plus") + " \(socialPlus.baseURL.absoluteString)")
                lines.append(
                    "  API key        \(socialPlus.apiKey)   server key \(socialPlus.serverKey)\(socialPlus.secureMode ? "   (secure mode)" : "")")
                lines.append("  users          \(emulator.seed.socialPlus.users.map(\.userID).joined(separator: ", ")) (others are created on login)")
            }
            if let first = emulator.providers.first.flatMap(emulator.baseURL(for:)) {
                lines.append("Control API at \(first.appending(path: "__emulator/").absoluteString) (on every port). Ctrl-C stops.")
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// Waits for one of a set of signals, which no longer terminate the process.
private final class SignalWaiter {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "latchkey.emulator.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        self.stream = stream
    }

    /// The first signal received.
    func next() async -> Int32 {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? SIGTERM
    }
}
