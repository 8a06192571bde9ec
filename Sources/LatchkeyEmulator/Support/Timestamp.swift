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

    /// Whole seconds since 1970, as JWT NumericDate claims carry them.
    static func seconds(_ date: Date) -> Double {
        date.timeIntervalSince1970.rounded(.down)
    }
}
