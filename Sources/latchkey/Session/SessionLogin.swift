import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeySocialPlus
import LatchkeyStytch

extension SessionCommand {
    /// `latchkey session login`: asks for what the provider needs and persists the session.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in and persist the session in the configured store.",
            discussion: """
            Stytch: --email, and the password from the terminal (no echo) or --password-stdin.
            Stytch B2B: --organization-id and --email as well; a second factor is asked for on the terminal             (a TOTP code, or --sms to have a code sent).
            Auth0: the device code by default (the code and the URL are printed; approve in any browser);             --browser opens the system browser with a loopback redirect; --username with --password-stdin uses the password grant.
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

        @Option(name: .long, help: "Stytch: the email address.")
        var email: String?

        @Option(name: .customLong("organization-id"), help: "Stytch B2B: the organization id.")
        var organizationID: String?

        @Flag(name: .customLong("password-stdin"), help: "Stytch: read the password from standard input.")
        var passwordFromStandardInput = false

        @Flag(name: .long, help: "Stytch B2B: send the second factor by SMS instead of asking for a TOTP code.")
        var sms = false

        @Flag(name: .long, help: "Auth0: log in in the system browser (PKCE, loopback redirect) instead of with a device code.")
        var browser = false

        @Option(name: .long, help: "Auth0: the username for the password grant (with --password-stdin or a terminal prompt).")
        var username: String?

        @Option(name: .long, help: "Auth0: the database connection (realm) for the password grant.")
        var realm: String?

        func run() async throws {
            let (client, configuration) = try self.client.makeClient()
            defer { Task { await client.shutdown() } }
            let credentials = try credentials(for: configuration.provider)
            let progress = Progress("Logging in with \(configuration.provider)")
            do {
                try await client.start()
                // A session another configuration made stays until this login replaces it: say so.
                await self.client.reportStoredSessionConflict(of: client)
                if client.state != .notLoggedIn { try await client.logout() }
                do {
                    try await client.login(credentials)
                } catch let error as AuthError where error.code == .needsUserAction {
                    progress.finish()
                    try await finishSecondFactor(client)
                }
                progress.finish()
            } catch {
                progress.finish()
                throw sessionFailure(error)
            }
            print("Logged in as \(TerminalText.escape(client.currentUser?.id ?? "?")) (\(configuration.provider)); the session is stored in the \(client.store.backendName) store.")
        }

        private func credentials(for provider: String) throws -> any LoginCredentials {
            switch provider {
            case "stytch":
                guard let email else { throw ValidationError("Stytch needs --email") }
                return StytchCredentials.password(email: email, password: try password())
            case "stytch-b2b":
                guard let email, let organizationID else { throw ValidationError("Stytch B2B needs --organization-id and --email") }
                return StytchB2BCredentials.password(organizationID: organizationID, emailAddress: email, password: try password())
            case "auth0":
                if let username {
                    return Auth0Credentials.password(username: username, password: try password(), realm: realm)
                }
                if browser {
                    return Auth0Credentials.browser(Auth0BrowserLogin(opener: .handOff { url in
                        printError("Opening your browser; if it does not open, visit: \(url.absoluteString)")
                        try? await BrowserOpener.system(url)
                    }))
                }
                return Auth0Credentials.deviceCode { code in
                    // Printed on stdout: the user needs it; the token is not in it.
                    print("To log in, visit \(TerminalText.escape(code.verificationURIComplete?.absoluteString ?? code.verificationURI.absoluteString))")
                    print("and confirm the code \(TerminalText.escape(code.userCode)). Waiting…")
                    fflush(nil)
                }
            case SocialPlusProvider.providerID:
                guard let userID else { throw ValidationError("social.plus needs --user-id") }
                let token = authTokenFromStandardInput ? try SecretInput.line(from: .standardInput, what: "auth token") : nil
                return SocialPlusLogin(userID: userID, displayName: displayName, authToken: token)
            default:
                throw fail("the CLI cannot log in to provider \"\(TerminalText.escape(provider))\" yet")
            }
        }

        private func password() throws -> String {
            try SecretInput.line(from: passwordFromStandardInput ? .standardInput : .terminal, what: "password")
        }

        /// A B2B login that needs another factor: a TOTP code from the terminal, or an SMS code.
        private func finishSecondFactor(_ client: AuthClient) async throws {
            guard let action = client.pendingUserAction else { throw fail("the provider asked for another step the CLI cannot take") }
            if client.provider.identifier == "auth0" {
                try await client.login(Auth0Credentials.mfa(otp: try SecretInput.prompt("One-time code: ")))
                return
            }
            if sms {
                try await client.stytchB2B?.sendSMSOTP(for: action)
                try await client.login(StytchB2BCredentials.smsOTP(code: try SecretInput.prompt("Code sent by SMS: ")))
            } else {
                try await client.login(StytchB2BCredentials.totp(code: try SecretInput.prompt("Authenticator (TOTP) code: ")))
            }
        }
    }
}
