import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyCLIBase
import LatchkeyJSON
import LatchkeySocialPlus
import LatchkeyStytch
import Synchronization

extension SessionCommand {
    /// `latchkey session login`: asks for what the provider needs and persists the session.
    /// A stored session stays until the new login succeeded; it is then replaced, and
    /// revoked at the provider (best effort).
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Log in and persist the session in the configured store.",
            discussion: """
                Stytch: --email, and the password from the terminal (no echo) or --password-stdin; or a one-time passcode: \
                --phone NUMBER (SMS, or --whatsapp) or --email with --otp sends it and reads it in the same run, --send-otp only \
                sends and prints the method id for a later --otp-method-id; or --magic-link-token-stdin.
                Stytch B2B: --organization-id and --email as well; a second factor is a TOTP code, an SMS code (--sms) or a \
                recovery code (--recovery-code). Discovery, before choosing an organization: --discovery --email E \
                --send-magic-link emails a link; --discovery --magic-link-token-stdin signs in with its token; then \
                --organization ID|slug picks the organization, or a numbered list on the terminal does, or the command fails \
                (exit 64) listing the choices and keeps the sign-in for 10 minutes, for --discovery --organization \
                ID|slug (--list-organizations lists them).
                Auth0: the device code by default (the code and the URL are printed; approve in any browser); --browser opens \
                the system browser with a loopback redirect; --username with --password-stdin uses the password grant, and a \
                second factor is a one-time code or a recovery code (--recovery-code).
                social.plus: --user-id (and --display-name); in secure mode the auth token from --auth-token-stdin or \
                --auth-token-command.
                Codes come from --code-stdin, --code-fd N (such as 3<<<"$CODE") or the terminal. Secrets are read from \
                standard input, a file descriptor or the terminal without echo, never from arguments.
                A stored session is kept until the new login succeeds; it is then replaced and revoked at the provider.

                \(SessionExitStatus.help)
                """
        )

        @OptionGroup var client: ClientOptions
        @OptionGroup var socialPlus: SocialPlusAuthTokenOptions
        @OptionGroup var codes: CodeOptions

        @Option(name: .customLong("user-id"), help: "social.plus: the user id.")
        var userID: String?

        @Option(name: .customLong("display-name"), help: "social.plus: the display name.")
        var displayName: String?

        @Option(name: .long, help: "Stytch: the email address.")
        var email: String?

        @Option(name: .customLong("organization-id"), help: "Stytch B2B: the organization id.")
        var organizationID: String?

        @Flag(name: .customLong("password-stdin"), help: "Stytch, Auth0: read the password from standard input.")
        var passwordFromStandardInput = false

        @Option(
            name: .customLong("otp-method-id"),
            help: "Stytch: log in with the one-time passcode sent for this method id (the code as for --code-stdin).")
        var otpMethodID: String?

        @Flag(name: .customLong("magic-link-token-stdin"), help: "Stytch: log in with the magic link's token, read from standard input.")
        var magicLinkTokenFromStandardInput = false

        @Flag(
            name: .customLong("send-magic-link"),
            help: "Stytch: email a login magic link to --email and stop; log in with its token and --magic-link-token-stdin.")
        var sendMagicLink = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Stytch: send a one-time passcode to this phone number (E.164, +15555550123) by "
                    + "SMS and log in with it.", valueName: "number"))
        var phone: String?

        @Flag(name: .long, help: "Stytch: send the one-time passcode to --phone by WhatsApp instead of SMS.")
        var whatsapp = false

        @Flag(name: .long, help: "Stytch: send a one-time passcode to --email and log in with it instead of a password.")
        var otp = false

        @Flag(
            name: .customLong("send-otp"),
            help: "Stytch: send a one-time passcode to --phone or --email and stop, printing its method id for --otp-method-id.")
        var sendOTP = false

        @Option(
            name: .customLong("otp-expiration"),
            help: ArgumentHelp(
                "Stytch: how long the sent code works, 1m to 10m (Stytch's "
                    + "default: 2m).", valueName: "duration"))
        var otpExpiration: String?

        @Flag(name: .long, help: "Stytch B2B: sign in before choosing an organization (a discovery magic link), then choose one.")
        var discovery = false

        @Option(name: .long, help: ArgumentHelp("Stytch B2B discovery: the organization to enter, by ID or slug.", valueName: "id|slug"))
        var organization: String?

        @Flag(name: .customLong("list-organizations"), help: "Stytch B2B discovery: list the organizations the sign-in can enter, and stop.")
        var listOrganizations = false

        @Flag(name: .long, help: "Stytch B2B: send the second factor by SMS instead of asking for a TOTP code.")
        var sms = false

        @Flag(name: .customLong("recovery-code"), help: "Stytch B2B, Auth0: the second factor is a recovery code.")
        var recoveryCode = false

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Auth0: log in in the system browser (PKCE, loopback redirect) instead of with a device code. "
                    + "The redirect must be registered first: settings.redirect_uri (http://127.0.0.1:PORT/callback, "
                    + "a fixed port) listed exactly, port included, in the Auth0 application's Allowed Callback URLs "
                    + "(for Stytch OAuth: the project's Redirect URLs), or the provider refuses it."))
        var browser = false

        @Option(name: .long, help: "Auth0: the username for the password grant (with --password-stdin or a terminal prompt).")
        var username: String?

        @Option(name: .long, help: "Auth0: the database connection (realm) for the password grant.")
        var realm: String?

        @Option(name: .long, help: "Auth0: the scope to ask for instead of the configured one.")
        var scope: String?

        @Option(name: .long, help: "Auth0: the audience (API) to ask for instead of the configured one.")
        var audience: String?

        @Option(name: .customLong("session-duration"), help: "Stytch: how long the session lasts, e.g. 60m or 7d (5 minutes to 366 days).")
        var sessionDuration: String?

        @Flag(name: .long, help: "Print one JSON object; prompts and instructions go to standard error.")
        var json = false

        func validate() throws {
            let stdinReaders = [passwordFromStandardInput, codes.fromStandardInput, socialPlus.fromStandardInput, magicLinkTokenFromStandardInput]
            if stdinReaders.filter({ $0 }).count > 1 {
                throw ValidationError("standard input carries one secret: use --code-fd N for the code when the password is on standard input")
            }
            if let sessionDuration { _ = try SessionDuration.parse(sessionDuration, option: "--session-duration") }
            if sendMagicLink {
                guard email != nil else { throw ValidationError("--send-magic-link needs --email") }
                if stdinReaders.contains(true) || otpMethodID != nil || sessionDuration != nil {
                    throw ValidationError("--send-magic-link only sends: give the token later with --magic-link-token-stdin")
                }
            }
            try validatePasswordless()
        }

        func run() async throws {
            let run = SessionRun(options: client, json: json, loggingIn: true)
            try await run { client, configuration in
                let duration = try sessionDuration.map { try SessionDuration.parse($0, option: "--session-duration") }
                if duration != nil, client.provider.sessionDurationBounds == nil {
                    throw SessionFailure.usage(
                        "--session-duration is for providers whose sessions have a length (Stytch), not \(configuration.provider)")
                }
                try checkPasswordlessProvider(configuration.provider)
                if sendMagicLink, let email {
                    return try await discovery ? Self.sendDiscoveryLink(client, email: email) : Self.sendLink(client, email: email)
                }
                if sendOTP { return try await sendCode(client) }
                if listOrganizations { return try await DiscoverySignIn(command: self, client: client).list() }
                let login = LoginSteps(command: self, run: run, client: client)
                let credentials = try await login.credentials(for: configuration.provider)
                let progress = Progress("Logging in with \(configuration.provider)", enabled: !json)
                defer { progress.finish() }
                // The stored session stays until the new login succeeds (a mistyped password
                // logs nobody out); then it is replaced and revoked at the provider.
                try await client.start(validating: false)
                let replacing = client.state == .established || client.state == .tokenExpired
                do {
                    try await client.replaceSession(with: credentials, sessionDuration: duration)
                } catch let error as AuthError where error.code == .needsUserAction {
                    progress.finish()
                    try await login.finishSecondFactor(duration: duration)
                }
                progress.finish()
                await SessionEndNote.forget(client)
                if discovery { await DiscoverySignIn.forget(client) }
                var result = await outcome(client, provider: configuration.provider, replaced: replacing, recoveryCode: login.newRecoveryCode)
                if let chosen = login.chosenOrganization { result.object["organization"] = .object(chosen) }
                return result
            }
        }

        /// Emails a magic link; the adapter keeps the PKCE verifier in the store for the
        /// later `--magic-link-token-stdin` login (another process). The session is untouched.
        private static func sendLink(_ client: AuthClient, email: String) async throws -> SessionOutcome {
            guard let stytch = client.provider as? StytchProvider else {
                throw SessionFailure.usage("--send-magic-link is for Stytch (consumer) only")
            }
            try await stytch.sendMagicLink(email: email)
            var outcome = SessionOutcome()
            outcome.lines = [
                "Sent a login magic link to \(TerminalText.escape(email)). Open it, then log in with its token: "
                    + "latchkey session login --magic-link-token-stdin"
            ]
            outcome.object = ["sent": .bool(true), "email": .string(email), "logged_in": .bool(false)]
            return outcome
        }

        private func outcome(_ client: AuthClient, provider: String, replaced: Bool, recoveryCode: String?) async -> SessionOutcome {
            let summary = await SessionSummary(client)
            var outcome = SessionOutcome()
            outcome.lines = [
                "Logged in as \(summary.person) (\(TerminalText.escape(provider))); the session is stored in the \(client.store.backendName) store."
            ]
            if replaced { outcome.lines.append("It replaced the previous session, which was revoked at the provider (best effort).") }
            outcome.object = [
                "logged_in": .bool(true), "provider": .string(provider), "user": summary.userObject,
                "store": .string(client.store.backendName), "replaced": .bool(replaced),
            ]
            summary.addTimes(to: &outcome.object)
            if let recoveryCode {
                // The user's only copy: shown once, in the output they asked for.
                outcome.object["new_recovery_code"] = .string(recoveryCode)
                outcome.lines.append("Your new recovery code (the old one no longer works; keep it safe): \(TerminalText.escape(recoveryCode))")
            }
            return outcome
        }
    }
}

/// The steps of one login: the first factor's credentials, then a second factor when the
/// provider asks for one.
final class LoginSteps: Sendable {
    let command: SessionCommand.Login
    let run: SessionRun
    let client: AuthClient
    /// The recovery code Auth0 issued in place of the one used, for the user's eyes only.
    private let recoveryCode = Mutex<String?>(nil)
    var newRecoveryCode: String? { recoveryCode.withLock { $0 } }
    /// The organization a discovery login entered (`{"organization_id", "slug", "name"}`).
    private let chosen = Mutex<JSONObject?>(nil)
    var chosenOrganization: JSONObject? { chosen.withLock { $0 } }

    init(command: SessionCommand.Login, run: SessionRun, client: AuthClient) {
        self.command = command
        self.run = run
        self.client = client
    }

    func credentials(for provider: String) async throws -> any LoginCredentials {
        let command = self.command
        switch provider {
        case StytchProvider.identifier:
            if command.phone != nil || command.otp {
                let sent = try await command.sendOneTimePasscode(client, json: run.json)
                do {
                    return StytchCredentials.otp(methodID: sent.methodID, code: try command.codes.read("one-time passcode"))
                } catch var failure as SessionFailure {
                    // The code is on its way: say how to use it rather than send another.
                    failure.hint =
                        "the code was sent: log in with --otp-method-id \(TerminalText.escape(sent.methodID)) and --code-stdin or --code-fd N"
                    failure.details["method_id"] = .string(sent.methodID)
                    throw failure
                }
            }
            if let methodID = command.otpMethodID {
                return StytchCredentials.otp(methodID: methodID, code: try command.codes.read("one-time passcode"))
            }
            if command.magicLinkTokenFromStandardInput {
                return StytchCredentials.magicLink(token: try SecretInput.line(from: .standardInput, what: "magic link token"))
            }
            guard let email = command.email else { throw SessionFailure.usage("Stytch needs --email (or --otp-method-id, --magic-link-token-stdin)") }
            return StytchCredentials.password(email: email, password: try password())
        case StytchB2BProvider.identifier:
            if command.discovery {
                let (credentials, organization) = try await DiscoverySignIn(command: command, client: client).enter()
                chosen.withLock { $0 = organization }
                return credentials
            }
            guard let email = command.email, let organizationID = command.organizationID else {
                throw SessionFailure.usage("Stytch B2B needs --organization-id and --email")
            }
            return StytchB2BCredentials.password(organizationID: organizationID, emailAddress: email, password: try password())
        case Auth0Provider.factory.identifier:
            if let username = command.username {
                return Auth0Credentials.password(
                    username: username, password: try password(), realm: command.realm, scope: command.scope,
                    audience: command.audience)
            }
            if command.browser {
                return Auth0Credentials.browser(
                    Auth0BrowserLogin(
                        opener: .handOff { url in
                            printError("Opening your browser; if it does not open, visit: \(url.absoluteString)")
                            try? await BrowserOpener.system(url)
                        }), scope: command.scope, audience: command.audience)
            }
            let json = run.json
            return Auth0Credentials.deviceCode(scope: command.scope, audience: command.audience) { code in
                // The user needs these; the token is not in them.
                SessionRun.say(
                    "To log in, visit \(TerminalText.escape(code.verificationURIComplete?.absoluteString ?? code.verificationURI.absoluteString))",
                    json: json)
                SessionRun.say("and confirm the code \(TerminalText.escape(code.userCode)). Waiting…", json: json)
            }
        case SocialPlusProvider.identifier:
            guard let userID = command.userID else { throw SessionFailure.usage("social.plus needs --user-id") }
            let token = try command.socialPlus.source()?.token(for: userID)
            return SocialPlusLogin(userID: userID, displayName: command.displayName, authToken: token)
        default:
            throw SessionFailure.configuration("the CLI cannot log in to provider \"\(TerminalText.escape(provider))\" yet")
        }
    }

    private func password() throws -> String {
        try SecretInput.line(from: command.passwordFromStandardInput ? .standardInput : .terminal, what: "password")
    }

    /// A login that needs another factor: a code (TOTP, SMS, one-time password) or a recovery code.
    func finishSecondFactor(duration: Duration?) async throws {
        guard let action = client.pendingUserAction else {
            throw SessionFailure(
                status: SessionExitStatus.refused, code: "needsUserAction",
                message: "the provider asked for another step the CLI cannot take")
        }
        let codes = command.codes
        let credentials: any LoginCredentials
        switch client.provider.identifier {
        case Auth0Provider.factory.identifier:
            if command.recoveryCode {
                credentials = Auth0Credentials.mfa(recoveryCode: try codes.read("recovery code")) { [self] new in
                    recoveryCode.withLock { $0 = new.code }
                }
            } else {
                credentials = Auth0Credentials.mfa(otp: try codes.read("one-time code"))
            }
        case StytchB2BProvider.identifier:
            if command.recoveryCode {
                credentials = StytchB2BCredentials.recoveryCode(try codes.read("recovery code"))
            } else if command.sms {
                try await client.stytchB2B?.sendSMSOTP(for: action)
                credentials = StytchB2BCredentials.smsOTP(code: try codes.read("code sent by SMS"))
            } else {
                credentials = StytchB2BCredentials.totp(code: try codes.read("authenticator (TOTP) code"))
            }
        default:
            throw SessionFailure(
                status: SessionExitStatus.refused, code: "needsUserAction",
                message: "the provider asked for another step (\(action.kind)) the CLI cannot take")
        }
        try await client.replaceSession(with: credentials, sessionDuration: duration)
    }
}
