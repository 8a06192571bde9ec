import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON

extension SessionCommand {
    /// `latchkey session token`: a valid access token on standard output.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a valid access token (renewed first if needed), for curl -H \"Authorization: Bearer $(latchkey session token)\".",
            discussion: SessionExitStatus.help
        )

        @OptionGroup var client: ClientOptions
        @OptionGroup var socialPlus: SocialPlusAuthTokenOptions

        @Option(name: .customLong("min-ttl"), help: "The shortest validity the token must have, e.g. 60s or 5m (default: the configuration's).")
        var minTTL: String?

        @Option(name: .long, help: "The scope the token must carry (space-separated; Auth0: a refresh grant asks for it).")
        var scope: String?

        @Option(name: .long, help: "The audience (API) the token must be for (Auth0).")
        var audience: String?

        @Flag(name: .long, help: "Print one JSON object: the token and when it expires.")
        var json = false

        func validate() throws {
            if let minTTL { _ = try SessionDuration.parse(minTTL, option: "--min-ttl") }
        }

        func run() async throws {
            let run = SessionRun(options: client, json: json)
            try await run { client, _ in
                try socialPlus.install(on: client)
                let minimum = try minTTL.map { try SessionDuration.parse($0, option: "--min-ttl") }
                // No round trip unless a renewal is due.
                try await client.start(validating: false)
                let token = try await client.accessToken(minTTL: minimum, scope: scope, audience: audience)
                // Raw on standard output, for scripts: only a token of the bearer syntax,
                // which holds no control or bidirectional character (one stored by an
                // older build was never checked).
                guard BearerTokenSyntax.isValid(token) else {
                    throw SessionFailure(
                        status: SessionExitStatus.storage, code: "storage",
                        message: "the stored token is not a bearer token (RFC 6750 characters only); not printed")
                }
                var outcome = SessionOutcome()
                outcome.lines = [token]
                let expiresAt = await client.accessTokenExpiresAt
                outcome.object = ["access_token": .string(token), "expires_at": expiresAt?.iso8601 ?? .null]
                return outcome
            }
        }
    }

    /// `latchkey session refresh`: renews now.
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Renew the session's tokens now (--session-duration also extends the session, Stytch).",
            discussion: SessionExitStatus.help
        )

        @OptionGroup var client: ClientOptions
        @OptionGroup var socialPlus: SocialPlusAuthTokenOptions

        @Option(name: .customLong("session-duration"), help: "Stytch: extend the session to last this long from now, e.g. 60m or 7d.")
        var sessionDuration: String?

        @Flag(name: .long, help: "Print one JSON object.")
        var json = false

        func validate() throws {
            if let sessionDuration { _ = try SessionDuration.parse(sessionDuration, option: "--session-duration") }
        }

        func run() async throws {
            let run = SessionRun(options: client, json: json)
            try await run { client, configuration in
                try socialPlus.install(on: client)
                let duration = try sessionDuration.map { try SessionDuration.parse($0, option: "--session-duration") }
                let progress = Progress("Renewing with \(configuration.provider)", enabled: !json)
                defer { progress.finish() }
                try await client.start(validating: false)
                try await client.renew(sessionDuration: duration)
                progress.finish()
                let summary = await SessionSummary(client)
                var outcome = SessionOutcome()
                outcome.lines = ["Renewed."] + summary.timeLines
                outcome.object = ["renewed": .bool(true)]
                summary.addTimes(to: &outcome.object)
                return outcome
            }
        }
    }

    /// `latchkey session logout`.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Log out: clear the stored session (--secure revokes it at the provider first).",
            discussion: SessionExitStatus.help
        )

        @OptionGroup var client: ClientOptions

        @Flag(name: .long, help: "Revoke the session at the provider first; if that fails, nothing is cleared.")
        var secure = false

        @Flag(name: .long, help: "Print one JSON object.")
        var json = false

        func run() async throws {
            let run = SessionRun(options: client, json: json)
            try await run { client, _ in
                try await client.start(validating: false)
                try await client.logout(revoke: secure ? .required : .none)
                var outcome = SessionOutcome()
                outcome.lines = ["Logged out."]
                outcome.object = ["logged_out": .bool(true), "revoked": .bool(secure)]
                return outcome
            }
        }
    }
}
