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

    /// `Fri, 15 Jan 2027 08:00:00 GMT`: IMF-fixdate, the HTTP `Date` header's form, in
    /// whole seconds (a fraction is dropped, as a server's clock tick would).
    static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func padded(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let day = days[min(max((parts.weekday ?? 1) - 1, 0), 6)], month = months[min(max((parts.month ?? 1) - 1, 0), 11)]
        return "\(day), \(padded(parts.day, 2)) \(month) \(padded(parts.year, 4)) "
            + "\(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2)) GMT"
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
