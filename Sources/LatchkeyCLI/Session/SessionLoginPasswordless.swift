import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON
import LatchkeySecrets
import LatchkeyStytch

/// `session login` without a password: Stytch one-time passcodes sent by the command
/// (SMS, WhatsApp, email) and Stytch B2B discovery emails.
extension SessionCommand.Login {
    /// The rules of the passcode and discovery options among themselves (the provider is
    /// checked once the configuration is known: ``checkPasswordlessProvider(_:)``).
    func validatePasswordless() throws {
        let sendsCode = phone != nil || otp || sendOTP
        if whatsapp, phone == nil { throw ValidationError("--whatsapp sends to --phone: give the number") }
        if otp || sendOTP, phone == nil, email == nil { throw ValidationError("\(otp ? "--otp" : "--send-otp") needs --phone or --email") }
        if sendsCode {
            if phone != nil, email != nil, otp || sendOTP { throw ValidationError("the code goes to --phone or to --email, not both") }
            if passwordFromStandardInput || otpMethodID != nil || magicLinkTokenFromStandardInput || sendMagicLink || discovery {
                throw ValidationError(
                    "--phone, --otp and --send-otp log in with a one-time passcode: leave out the password, "
                        + "--otp-method-id, magic link and discovery options")
            }
        }
        if sendOTP, codes.fromStandardInput || codes.descriptor != nil || sessionDuration != nil {
            throw ValidationError("--send-otp only sends: give the code later with --otp-method-id and --code-stdin or --code-fd N")
        }
        if otpExpiration != nil, !sendsCode { throw ValidationError("--otp-expiration is for a code the command sends (--phone, --otp, --send-otp)") }
        _ = try otpExpirationMinutes()
        if organization != nil || listOrganizations, !discovery {
            throw ValidationError("--organization and --list-organizations choose after a discovery sign-in: add --discovery")
        }
        if discovery {
            if organizationID != nil {
                throw ValidationError("--discovery chooses the organization with --organization ID|slug, not --organization-id")
            }
            if passwordFromStandardInput { throw ValidationError("--discovery signs in with a discovery magic link, not a password") }
            if listOrganizations, organization != nil { throw ValidationError("give --list-organizations or --organization, not both") }
            if sendMagicLink, organization != nil || listOrganizations {
                throw ValidationError("--send-magic-link only sends: choose the organization after signing in with its token")
            }
        }
    }

    /// `--otp-expiration` in whole minutes, 1 to 10 (what Stytch accepts), or nil.
    func otpExpirationMinutes() throws -> Int? {
        guard let otpExpiration else { return nil }
        let duration = try SessionDuration.parse(otpExpiration, option: "--otp-expiration")
        let seconds = duration.components.seconds
        guard duration.components.attoseconds == 0, seconds % 60 == 0, StytchProvider.otpExpirationBounds.contains(Int(seconds / 60)) else {
            throw ValidationError("--otp-expiration takes whole minutes from 1m to 10m; got \"\(TerminalText.escape(otpExpiration))\"")
        }
        return Int(seconds / 60)
    }

    /// Refuses options the configured provider has no use for, before any request.
    func checkPasswordlessProvider(_ provider: String) throws {
        if phone != nil || otp || sendOTP, provider != StytchProvider.identifier {
            throw SessionFailure.usage("--phone, --otp and --send-otp are for Stytch (consumer), not \(TerminalText.escape(provider))")
        }
        if discovery, provider != StytchB2BProvider.identifier {
            throw SessionFailure.usage("--discovery is for Stytch B2B, not \(TerminalText.escape(provider))")
        }
    }

    private func otpDelivery() throws -> StytchOTPDelivery {
        if let phone { return whatsapp ? .whatsApp(phoneNumber: phone) : .sms(phoneNumber: phone) }
        if let email { return .email(email) }
        throw SessionFailure.usage("a one-time passcode needs --phone or --email")
    }

    private func send(_ client: AuthClient) async throws -> (StytchOTPDelivery, StytchSentOTP) {
        guard let stytch = client.stytch else { throw SessionFailure.usage("one-time passcodes are sent by Stytch (consumer) only") }
        let delivery = try otpDelivery()
        return (delivery, try await stytch.sendOTP(delivery, expirationMinutes: try otpExpirationMinutes()))
    }

    /// Sends the one-time passcode and says where it went (standard error with `--json`),
    /// before the code is asked for.
    func sendOneTimePasscode(_ client: AuthClient, json: Bool) async throws -> StytchSentOTP {
        let (delivery, sent) = try await send(client)
        SessionRun.say("Sent a one-time passcode by \(Self.channelName(delivery)) to \(TerminalText.escape(delivery.destination)).", json: json)
        return sent
    }

    /// `--send-otp`: sends and stops; the method id is printed for the later login.
    func sendCode(_ client: AuthClient) async throws -> SessionOutcome {
        let (delivery, sent) = try await send(client)
        var outcome = SessionOutcome()
        outcome.lines = [
            "Sent a one-time passcode by \(Self.channelName(delivery)) to \(TerminalText.escape(delivery.destination)). "
                + "Log in with it: latchkey session login --otp-method-id \(TerminalText.escape(sent.methodID)) "
                + "(the code on --code-stdin, --code-fd N or the terminal)"
        ]
        outcome.object = [
            "sent": .bool(true), "channel": .string(delivery.channel), "to": .string(delivery.destination),
            "method_id": .string(sent.methodID), "logged_in": .bool(false),
        ]
        if let userID = sent.userID { outcome.object["user_id"] = .string(userID) }
        return outcome
    }

    private static func channelName(_ delivery: StytchOTPDelivery) -> String {
        switch delivery {
        case .sms: "SMS"
        case .whatsApp: "WhatsApp"
        case .email: "email"
        }
    }

    /// `--discovery --send-magic-link`: emails a discovery link; the adapter keeps the PKCE
    /// verifier in the store for the later `--discovery --magic-link-token-stdin` (another
    /// process). The session is untouched.
    static func sendDiscoveryLink(_ client: AuthClient, email: String) async throws -> SessionOutcome {
        guard let b2b = client.stytchB2B else { throw SessionFailure.usage("--discovery is for Stytch B2B only") }
        try await b2b.sendDiscoveryMagicLink(emailAddress: email)
        var outcome = SessionOutcome()
        outcome.lines = [
            "Sent a discovery magic link to \(TerminalText.escape(email)). Open it, then sign in with its token: "
                + "latchkey session login --discovery --magic-link-token-stdin [--organization ID|slug]"
        ]
        outcome.object = ["sent": .bool(true), "email": .string(email), "discovery": .bool(true), "logged_in": .bool(false)]
        return outcome
    }
}

/// A Stytch B2B discovery sign-in: the intermediate session from a discovery magic link,
/// the organizations it can enter, and the choice of one. The intermediate session is
/// kept in the CLI's part of the store for its 10 minutes, so a choice that cannot be made
/// in this run (no `--organization`, no terminal) can be made by the next one.
struct DiscoverySignIn {
    let command: SessionCommand.Login
    let client: AuthClient

    private static let entry = "discovery-intermediate-session"
    private static func store(of client: AuthClient) -> ScopedSecretStore { ScopedSecretStore(base: client.store, scope: "cli.") }

    /// The exchange into the chosen organization, and that organization for the output.
    func enter() async throws -> (StytchB2BCredentials, JSONObject) {
        let (token, organizations) = try await signIn()
        let chosen = try choose(organizations)
        return (
            StytchB2BCredentials.discoveryExchange(organizationID: chosen.organization.id, intermediateSessionToken: token),
            Self.object(chosen)
        )
    }

    /// `--list-organizations`: the organizations, and no login.
    func list() async throws -> SessionOutcome {
        let (_, organizations) = try await signIn()
        var outcome = SessionOutcome()
        outcome.lines =
            organizations.isEmpty
            ? ["No organization: the address is a member of none this sign-in can enter."]
            : ["Organizations this sign-in can enter (for 10 minutes: latchkey session login --discovery --organization ID|slug):"]
                + organizations.map { "  " + Self.line($0) }
        outcome.object = ["organizations": .array(organizations.map { .object(Self.object($0)) }), "logged_in": .bool(false)]
        return outcome
    }

    /// Forgets a kept sign-in: it was used (or is useless).
    static func forget(_ client: AuthClient) async {
        _ = try? await store(of: client).remove(entry)
    }

    /// The intermediate session and its organizations: from the link's token on standard
    /// input (kept at once), else the sign-in a previous run kept.
    private func signIn() async throws -> (token: String, organizations: [StytchDiscoveredOrganization]) {
        guard let b2b = client.stytchB2B else { throw SessionFailure.usage("--discovery is for Stytch B2B only") }
        if command.magicLinkTokenFromStandardInput {
            let link = try SecretInput.line(from: .standardInput, what: "discovery magic link token")
            let discovery = try await b2b.authenticateDiscoveryMagicLink(token: link)
            await keep(discovery)
            return (discovery.intermediateSessionToken, discovery.organizations)
        }
        guard let token = await kept() else {
            throw SessionFailure.usage(
                "no discovery sign-in to continue (none, or older than 10 minutes): send a link with "
                    + "--discovery --email ADDRESS --send-magic-link, then sign in with --discovery --magic-link-token-stdin")
        }
        do {
            return (token, try await b2b.discoveredOrganizations(intermediateSessionToken: token))
        } catch let error as AuthError where error.code == .unrecoverable || error.code == .invalidArgument {
            // Stytch no longer knows it (used, expired): it is of no use to the next run either.
            await Self.forget(client)
            throw error
        }
    }

    /// Keeps the intermediate session (a secret, in the store beside the session) until it
    /// expires locally. Best effort: a store that refuses costs only the later choice.
    private func keep(_ discovery: StytchDiscovery) async {
        let object: JSONObject = [
            "intermediate_session_token": .string(discovery.intermediateSessionToken),
            "expires_at": discovery.expiresAt.iso8601,
        ]
        try? await Self.store(of: client).set(Self.entry, Array(JSONValue.object(object).jsonText.utf8))
    }

    private func kept() async -> String? {
        guard let bytes = try? await Self.store(of: client).get(Self.entry), bytes.count <= 16_384,
            let object = try? JSONValue.parse(bytes: bytes).objectValue, let token = object["intermediate_session_token"]?.stringValue,
            let text = object["expires_at"]?.stringValue, let expires = try? Date(text, strategy: .iso8601)
        else { return nil }
        guard expires > Date() else {
            await Self.forget(client)
            return nil
        }
        return token
    }

    /// `--organization`, else a numbered list on the terminal, else a usage error listing
    /// the choices: a script never waits on a prompt.
    private func choose(_ organizations: [StytchDiscoveredOrganization]) throws -> StytchDiscoveredOrganization {
        guard !organizations.isEmpty else {
            throw SessionFailure(
                status: SessionExitStatus.refused, code: "no_organizations",
                message: "the address is a member of no organization this sign-in can enter")
        }
        if let wanted = command.organization {
            if let found = organizations.first(where: { $0.organization.id == wanted || $0.organization.slug == wanted }) { return found }
            throw choiceFailure(organizations, "no organization of this sign-in has the ID or slug \"\(TerminalText.escape(wanted))\"")
        }
        if let picked = TerminalChoice.pick(organizations.map(Self.line), heading: "Organizations you can enter:") { return organizations[picked] }
        throw choiceFailure(organizations, "choose the organization with --organization ID|slug")
    }

    private func choiceFailure(_ organizations: [StytchDiscoveredOrganization], _ message: String) -> SessionFailure {
        let names = organizations.map { "\($0.organization.slug ?? $0.organization.id)" }.joined(separator: ", ")
        var failure = SessionFailure.usage("\(message); the choices: \(TerminalText.escape(names))")
        failure.hint = "the sign-in is kept for 10 minutes: latchkey session login --discovery --organization ID|slug"
        failure.details["organizations"] = .array(organizations.map { .object(Self.object($0)) })
        return failure
    }

    /// `Acme (acme, organization-test-…) — a second factor follows`, escaped for a terminal.
    private static func line(_ found: StytchDiscoveredOrganization) -> String {
        let organization = found.organization
        var text = TerminalText.escape(organization.name ?? organization.id)
        text += " (" + TerminalText.escape([organization.slug, organization.id].compactMap { $0 }.joined(separator: ", ")) + ")"
        if needsSecondFactor(found) { text += " — a second factor follows" }
        return text
    }

    private static func needsSecondFactor(_ found: StytchDiscoveredOrganization) -> Bool {
        found.requirements["mfa_required"].map { $0 != .null } ?? false
    }

    /// `{"organization_id", "slug", "name", "membership", "member_authenticated", "second_factor_required"}`.
    private static func object(_ found: StytchDiscoveredOrganization) -> JSONObject {
        var object: JSONObject = ["organization_id": .string(found.organization.id)]
        object["slug"] = found.organization.slug.map(JSONValue.string) ?? .null
        object["name"] = found.organization.name.map(JSONValue.string) ?? .null
        object["membership"] = found.membershipType.map(JSONValue.string) ?? .null
        object["member_authenticated"] = .bool(found.memberAuthenticated)
        object["second_factor_required"] = .bool(needsSecondFactor(found))
        return object
    }
}
