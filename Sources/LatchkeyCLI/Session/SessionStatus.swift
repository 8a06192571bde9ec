import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON

extension SessionCommand {
    /// `latchkey session status`: restores and validates the stored session, and says
    /// who is signed in and until when — or, when the provider ended the session, why.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Restore and validate the stored session, then show it (exit status 1 when nobody is logged in).",
            discussion: """
                When the provider ended the session (here or in an earlier command), status says why: the verdict's code, \
                the endpoint that gave it and its message, until the next login.

                \(SessionExitStatus.help)
                """
        )

        @OptionGroup var client: ClientOptions
        @OptionGroup var socialPlus: SocialPlusAuthTokenOptions

        @Flag(name: .long, help: "Print one JSON object for scripts.")
        var json = false

        func run() async throws {
            let run = SessionRun(options: client, json: json)
            try await run { client, configuration in
                try socialPlus.install(on: client)
                let progress = Progress("Checking the session with \(configuration.provider)", enabled: !json)
                defer { progress.finish() }
                try await client.start()
                progress.finish()
                return await outcome(client, provider: configuration.provider)
            }
        }

        private func outcome(_ client: AuthClient, provider: String) async -> SessionOutcome {
            let state = client.state
            let pending = await client.isRevalidationPending
            let summary = await SessionSummary(client)
            let signedIn = state == .established || state == .tokenExpired
            // The verdict of this process, else the note an earlier one left.
            var ended: SessionEndNote?
            if let error = await client.endError {
                ended = SessionEndNote(provider: provider, error: error, endedAt: Date())
            } else if !signedIn {
                ended = await SessionEndNote.load(client)
            }
            let restoreError = await client.restoreError
            var outcome = SessionOutcome()
            outcome.status =
                signedIn
                ? SessionExitStatus.success
                : restoreError != nil ? SessionExitStatus.storage : SessionExitStatus.notLoggedIn
            outcome.object = [
                "provider": .string(provider), "state": .string("\(state)"), "logged_in": .bool(signedIn),
                "revalidation_pending": .bool(pending),
            ]
            outcome.object["user"] = signedIn ? summary.userObject : .null
            summary.addTimes(to: &outcome.object)
            outcome.object["end_reason"] = ended.map { .object($0.object) } ?? .null
            if let restoreError { outcome.object["store_error"] = .string(restoreError.message) }

            outcome.lines.append("provider:        \(TerminalText.escape(provider))")
            outcome.lines.append("state:           \(signedIn ? Colour.green("\(state)") : Colour.yellow("\(state)"))")
            if signedIn {
                outcome.lines.append("user:            \(summary.person)")
                outcome.lines += summary.timeLines
                if let validated = summary.lastValidatedAt {
                    outcome.lines.append("last validated:  \(RelativeTime.describe(validated))\(pending ? " — could not be revalidated now" : "")")
                }
            }
            if let ended {
                outcome.lines.append(
                    "session ended:   \(RelativeTime.describe(ended.endedAt)), by \(TerminalText.escape(ended.provider)): \(TerminalText.escape(ended.sentence))"
                )
            }
            if let restoreError { outcome.lines.append("store:           \(TerminalText.escape(restoreError.message))") }
            return outcome
        }
    }
}
