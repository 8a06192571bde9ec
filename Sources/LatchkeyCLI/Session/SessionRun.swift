import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON

/// What a session command reports when it ran: lines for a person, members of the JSON
/// object for `--json`, and the exit status (`status` exits 1 when nobody is logged in).
struct SessionOutcome {
    var status = SessionExitStatus.success
    var lines: [String] = []
    var object: JSONObject = [:]
}

/// Runs a session command: builds the client, runs the command, notes why a session
/// ended (``SessionEndNote``), shuts the client down, and prints the outcome — or the
/// failure, mapped to its exit status in one place (``SessionExitStatus/of(_:loggingIn:)``) —
/// as text or as exactly one JSON object on standard output.
struct SessionRun {
    let options: SessionCommand.ClientOptions
    let json: Bool
    /// Whether refusals mean refused credentials (login) rather than an ended session.
    var loggingIn = false

    func callAsFunction(_ body: (AuthClient, LatchkeyConfiguration) async throws -> SessionOutcome) async throws {
        let outcome: SessionOutcome
        do {
            let (client, configuration) = try options.makeClient()
            do {
                outcome = try await body(client, configuration)
            } catch {
                await options.reportStoredSessionConflict(of: client)
                await SessionEndNote.keep(client)
                await client.shutdown()
                throw error
            }
            await options.reportStoredSessionConflict(of: client)
            await SessionEndNote.keep(client)
            await client.shutdown()
        } catch {
            let failure = SessionFailure(error, loggingIn: loggingIn)
            if json {
                var object: JSONObject = ["error": .object(failure.object)]
                object["exit_status"] = .number(Double(failure.status))
                SessionRun.printJSON(object)
            } else {
                printError(failure.line)
            }
            throw ExitCode(failure.status)
        }
        if json {
            var object = outcome.object
            object["exit_status"] = .number(Double(outcome.status))
            SessionRun.printJSON(object)
        } else {
            for line in outcome.lines { print(line) }
        }
        if outcome.status != SessionExitStatus.success { throw ExitCode(outcome.status) }
    }

    /// Prints one JSON object on one line. JSON escapes C0 controls; C1 controls, line
    /// separators and bidirectional controls (a provider's strings may hold them) are
    /// escaped too, so the line is safe on a terminal.
    static func printJSON(_ object: JSONObject) {
        var text = ""
        for scalar in JSONValue.object(object).jsonText.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) || (0x2028...0x2029).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
            {
                text += String(format: "\\u%04x", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        print(text)
        fflush(nil)
    }

    /// Where a command's messages for a person go: standard output, or standard error
    /// with `--json` (standard output then carries only the JSON object).
    func say(_ line: String) { Self.say(line, json: json) }

    /// ``say(_:)`` for code that must not capture the command's options.
    static func say(_ line: String, json: Bool) {
        if json {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } else {
            print(line)
            fflush(nil)
        }
    }
}

extension Date {
    /// `2026-11-27T01:02:03Z`, for JSON.
    var iso8601: JSONValue { .string(formatted(.iso8601)) }
}
