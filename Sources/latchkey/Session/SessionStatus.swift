import ArgumentParser
import Foundation
import Latchkey

extension SessionCommand {
    /// `latchkey session status`: restores and validates the stored session, and says
    /// who is signed in and until when.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore and validate the stored session, then show it (exit status 1 when not logged in)."
        )

        @OptionGroup var client: ClientOptions

        @Flag(name: .long, help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            let (client, configuration) = try self.client.makeClient()
            let progress = Progress("Checking the session with \(configuration.provider)", enabled: !json)
            do { try await client.start() } catch {
                progress.finish()
                throw sessionFailure(error)
            }
            progress.finish()
            await self.client.reportStoredSessionConflict(of: client)
            let state = client.state
            let validated = await client.lastValidatedAt
            let pending = await client.isRevalidationPending
            let expires = client.currentSession?.expiresAt ?? client.currentMemberSession?.expiresAt
            let user = client.currentUser?.id ?? client.currentMember?.id
            await client.shutdown()
            let signedIn = state == .established || state == .tokenExpired
            if json {
                var object: [String: Any] = ["provider": configuration.provider, "state": "\(state)", "logged_in": signedIn,
                                             "revalidation_pending": pending]
                if let user { object["user"] = user }
                if let expires { object["session_expires_at"] = expires.formatted(.iso8601) }
                if let validated { object["last_validated_at"] = validated.formatted(.iso8601) }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("provider:        \(configuration.provider)")
                print("state:           \(signedIn ? Colour.green("\(state)") : Colour.yellow("\(state)"))")
                if let user { print("user:            \(TerminalText.escape(user))") }
                if let expires { print("session expires: \(RelativeTime.describe(expires)) (\(expires.formatted(.iso8601)))") }
                if let validated { print("last validated:  \(RelativeTime.describe(validated))\(pending ? " — could not be revalidated now" : "")") }
            }
            if !signedIn { throw ExitCode(ExitStatus.failure) }
        }
    }

    /// `latchkey session token`: a valid access token on standard output.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a valid access token (renewed first if needed), for curl -H \"Authorization: Bearer $(latchkey session token)\"."
        )

        @OptionGroup var client: ClientOptions

        @Option(name: .customLong("min-ttl"), help: "The shortest validity the token must have, e.g. 60s or 5m (default: the configuration's).")
        var minTTL: String?

        func run() async throws {
            let (client, _) = try self.client.makeClient()
            let minimum: Duration? = try minTTL.map { text in
                guard let seconds = try? Durations.parse(text), seconds >= 0 else { throw ValidationError("--min-ttl takes a duration such as 60s or 5m") }
                return .seconds(seconds)
            }
            do {
                // No round trip unless a renewal is due.
                try await client.start(validating: false)
                await self.client.reportStoredSessionConflict(of: client)
                let token = try await client.accessToken(minTTL: minimum)
                await client.shutdown()
                // Raw on standard output, for scripts: only a token of the bearer syntax,
                // which holds no control or bidirectional character (one stored by an
                // older build was never checked).
                guard BearerTokenSyntax.isValid(token) else {
                    throw fail("the stored token is not a bearer token (RFC 6750 characters only); not printed")
                }
                print(token)
            } catch {
                await client.shutdown()
                throw sessionFailure(error)
            }
        }
    }

    /// `latchkey session refresh`: renews now.
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Renew the session's tokens now.")

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let (client, configuration) = try self.client.makeClient()
            let progress = Progress("Renewing with \(configuration.provider)")
            do {
                try await client.start(validating: false)
                await self.client.reportStoredSessionConflict(of: client)
                try await client.renew()
                progress.finish()
                await client.shutdown()
            } catch {
                progress.finish()
                await client.shutdown()
                throw sessionFailure(error)
            }
            print("Renewed.")
        }
    }

    /// `latchkey session logout`.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log out: clear the stored session (--secure revokes it at the provider first)."
        )

        @OptionGroup var client: ClientOptions

        @Flag(name: .long, help: "Revoke the session at the provider first; if that fails, nothing is cleared.")
        var secure = false

        func run() async throws {
            let (client, _) = try self.client.makeClient()
            do {
                try await client.start(validating: false)
                await self.client.reportStoredSessionConflict(of: client)
                try await client.logout(revoke: secure ? .required : .none)
                await client.shutdown()
            } catch {
                await client.shutdown()
                throw sessionFailure(error)
            }
            print("Logged out.")
        }
    }
}
