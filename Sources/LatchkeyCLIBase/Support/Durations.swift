package import FoundationEssentials
import Glibc

/// Durations on the command line (`--exp 5m`) and in output ("expires in 4m 12s").
package enum Durations {
    private static let units: [(suffix: Character, seconds: Double)] = [
        ("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    /// The longest duration accepted: about 31,700 years.
    package static let maxSeconds: TimeInterval = 1e12

    /// Parses `90s`, `5m`, `1h`, `30d`, `2w`, or combinations such as `1h30m`: every
    /// number with its unit. Throws the reason for anything else: a bare number gets
    /// the question back (`5` → "5s, 5m, 5h or 5d?"), and zero, negative, or
    /// ``maxSeconds`` and up are refused. Never traps, whatever the digits.
    package static func parse(_ text: String) throws(DurationError) -> TimeInterval {
        let text = text.trimming(while: \.isWhitespace).lowercased()
        let examples = "90s, 5m, 1h, 30d, 2w or 1h30m"
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            throw DurationError("\"\(text)\" has no unit: \(text)s, \(text)m, \(text)h or \(text)d?")
        }
        var total = 0.0, number = ""
        for character in text {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
            } else if let unit = units.first(where: { $0.suffix == character }), let value = Double(number) {
                total += value * unit.seconds
                number = ""
            } else {
                throw DurationError("\"\(text)\" is not a duration; write a number and a unit: \(examples)")
            }
        }
        guard number.isEmpty else {
            throw DurationError("\"\(text)\" ends in a number without a unit; write \(examples)")
        }
        guard total > 0, total.isFinite else { throw DurationError("\"\(text)\" is not a positive duration") }
        guard total < maxSeconds else { throw DurationError("\"\(text)\" is too long; the most is about 31,000 years") }
        return total
    }

    /// A length of time in its two largest adjacent units: "42s", "4m 12s", "3h",
    /// "2d 5h", "3y 8d" (a year being 365 days). Absurd values (beyond 10,000 years) read "a very long time".
    package static func describe(_ seconds: TimeInterval) -> String {
        let magnitude = abs(seconds)
        guard magnitude.isFinite, magnitude < 3.2e11 else { return "a very long time" }
        let whole = Int(magnitude.rounded())
        let steps = [(31_536_000, "y", 86_400, "d"), (86_400, "d", 3_600, "h"), (3_600, "h", 60, "m"), (60, "m", 1, "s")]
        for (size, name, smaller, smallerName) in steps where whole >= size {
            let rest = (whole % size) / smaller
            return "\(whole / size)\(name)" + (rest > 0 ? " \(rest)\(smallerName)" : "")
        }
        return "\(whole)s"
    }

    /// "in 4m 12s", "3h ago" or "just now", relative to `now`.
    package static func relative(_ date: Date, to now: Date) -> String {
        let delta = date.timeIntervalSince(now)
        if abs(delta) < 1 { return "just now" }
        return delta > 0 ? "in \(describe(delta))" : "\(describe(delta)) ago"
    }

    /// The phrase for an `exp` claim: "expires in 4m 12s" or "expired 3h ago".
    package static func expiry(_ exp: Date, now: Date) -> String {
        exp > now ? "expires in \(describe(exp.timeIntervalSince(now)))" : "expired \(describe(now.timeIntervalSince(exp))) ago"
    }

    /// A date as ISO 8601 in UTC ("2026-11-22T18:22:37Z"), or the raw number when it is
    /// outside the years 0001-9999.
    package static func utc(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 else {
            return "\(seconds) (out of range)"
        }
        return date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}

/// Why a duration was refused, for the user.
package struct DurationError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
