import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeySocialPlus
import Synchronization

/// social.plus in secure mode: where the auth token comes from, for a login and for every
/// renewal (a renewal is a new login, which needs a fresh token). Without a source no
/// session handler is registered, and the adapter never renews a session that needs a
/// token without one: the renewal is refused and the session kept.
struct SocialPlusAuthTokenOptions: ParsableArguments {
    @Flag(name: .customLong("auth-token-stdin"), help: "social.plus: read the auth token from standard input (secure mode).")
    var fromStandardInput = false

    @Option(
        name: .customLong("auth-token-command"),
        help: ArgumentHelp(
            "social.plus: run CMD (with /bin/sh; $LATCHKEY_USER_ID names the user) and use what it prints as the auth token.",
            valueName: "CMD"))
    var command: String?

    func validate() throws {
        if fromStandardInput, command != nil { throw ValidationError("give --auth-token-stdin or --auth-token-command, not both") }
    }

    var isGiven: Bool { fromStandardInput || command != nil }

    /// The source, when one was given.
    func source() -> AuthTokenSource? {
        if let command { return AuthTokenSource(kind: .command(command)) }
        return fromStandardInput ? AuthTokenSource(kind: .standardInput) : nil
    }

    /// Registers the source as the session handler of a social.plus client; refuses the
    /// options for other providers.
    func install(on client: AuthClient) throws {
        guard let source = source() else { return }
        guard let provider = client.provider as? SocialPlusProvider else {
            throw SessionFailure.usage("--auth-token-stdin and --auth-token-command are for social.plus only")
        }
        provider.register(sessionHandler: source)
    }
}

/// Supplies social.plus auth tokens: standard input (read once) or a command run for
/// each token. The tokens are secrets: never printed, logged or put in an error.
final class AuthTokenSource: SocialPlusSessionHandler, Sendable {
    enum Kind: Sendable {
        case standardInput
        case command(String)
    }

    let kind: Kind
    /// Standard input can be read once: its token is kept for a second ask.
    private let read = Mutex<String?>(nil)

    init(kind: Kind) { self.kind = kind }

    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer {
        .renewWithAuthToken(try token(for: userID))
    }

    /// A token for `userID`.
    /// - Throws: ``SessionFailure`` (no input, or the command failed).
    func token(for userID: String) throws -> String {
        switch kind {
        case .standardInput:
            if let token = read.withLock({ $0 }) { return token }
            let token = try SecretInput.line(from: .standardInput, what: "auth token")
            read.withLock { $0 = token }
            return token
        case .command(let command):
            return try Self.run(command, userID: userID)
        }
    }

    private static func run(_ command: String, userID: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_USER_ID"] = userID
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw SessionFailure.noInput("cannot run the --auth-token-command: \(error.localizedDescription)")
        }
        // Read before waiting (a full pipe would block the command), at most 64 KiB.
        var data = Data()
        while data.count <= 65_536, let chunk = try? output.fileHandleForReading.read(upToCount: 16_384), !chunk.isEmpty {
            data += chunk
        }
        try? output.fileHandleForReading.close()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw SessionFailure.noInput("the --auth-token-command failed (exit status \(process.terminationStatus))")
        }
        guard data.count <= 65_536 else { throw SessionFailure.noInput("the --auth-token-command printed more than 64 KiB") }
        var token = String(decoding: data, as: UTF8.self)
        while token.hasSuffix("\n") || token.hasSuffix("\r") { token.removeLast() }
        guard !token.isEmpty else { throw SessionFailure.noInput("the --auth-token-command printed no auth token") }
        return token
    }
}
