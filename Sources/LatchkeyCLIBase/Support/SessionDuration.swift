import ArgumentParser

/// Durations given on the command line (`90s`, `5m`, `7d`).
package enum SessionDuration {
    /// - Throws: a `ValidationError` (usage) naming the option.
    package static func parse(_ text: String, option: String) throws -> Duration {
        guard let seconds = try? Durations.parse(text), seconds.isFinite, seconds >= 0, seconds <= 1e10 else {
            throw ValidationError("\(option) takes a duration such as 60s, 5m or 7d; got \"\(TerminalText.escape(text))\"")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
