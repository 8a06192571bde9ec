import ArgumentParser
import Foundation
import Latchkey
import LatchkeySocialPlus

extension SessionCommand {
    /// `latchkey session login`: asks for what the provider needs and persists the session.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in and persist the session in the configured store.",
            discussion: """
            social.plus: --user-id (and --display-name); in secure mode --auth-token-stdin reads the auth token.
            Secrets are read from standard input or from the terminal without echo, never from arguments.
            """
        )

        @OptionGroup var client: ClientOptions

        @Option(name: .customLong("user-id"), help: "social.plus: the user id.")
        var userID: String?

        @Option(name: .customLong("display-name"), help: "social.plus: the display name.")
        var displayName: String?

        @Flag(name: .customLong("auth-token-stdin"), help: "social.plus: read the auth token from standard input.")
        var authTokenFromStandardInput = false

        func run() async throws {
            let (client, configuration) = try self.client.makeClient()
            defer { Task { await client.shutdown() } }
            let credentials = try credentials(for: configuration.provider)
            let progress = Progress("Logging in with \(configuration.provider)")
            do {
                try await client.start()
                if client.state != .notLoggedIn { try await client.logout() }
                try await client.login(credentials)
                progress.finish()
            } catch {
                progress.finish()
                throw sessionFailure(error)
            }
            print("Logged in as \(TerminalText.escape(client.currentUser?.id ?? "?")) (\(configuration.provider)); the session is stored in the \(client.store.backendName) store.")
        }

        private func credentials(for provider: String) throws -> any LoginCredentials {
            switch provider {
            case SocialPlusProvider.providerID:
                guard let userID else { throw ValidationError("social.plus needs --user-id") }
                let token = authTokenFromStandardInput ? try SecretInput.line(from: .standardInput, what: "auth token") : nil
                return SocialPlusLogin(userID: userID, displayName: displayName, authToken: token)
            default:
                throw fail("the CLI cannot log in to provider \"\(TerminalText.escape(provider))\" yet")
            }
        }
    }
}
