import Foundation

/// The timestamp formats the providers use: RFC 3339 in UTC, with or without milliseconds.
enum Timestamp {
    /// `2026-01-02T03:04:05Z` (Stytch).
    static func rfc3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// `2026-01-02T03:04:05.678Z` (social.plus).
    static func iso8601Milliseconds(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Whole seconds since 1970 as an integer, for headers: clamped to `Int`'s range
    /// instead of trapping, whatever the clock was advanced to.
    static func wholeSeconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        if let exact = Int(exactly: seconds) { return exact }
        return seconds.isNaN || seconds < 0 ? (seconds.isNaN ? 0 : Int.min) : Int.max
    }

    /// Whole seconds since 1970, as JWT NumericDate claims carry them.
    static func seconds(_ date: Date) -> Double {
        date.timeIntervalSince1970.rounded(.down)
    }
}
