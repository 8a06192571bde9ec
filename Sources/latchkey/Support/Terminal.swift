import Foundation

/// Colour only on a terminal, and never with `NO_COLOR`.
enum Terminal {
    static let useColour: Bool = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func bold(_ text: String) -> String { useColour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func yellow(_ text: String) -> String { useColour ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    static func green(_ text: String) -> String { useColour ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    static func red(_ text: String) -> String { useColour ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}

/// "4m 12s", "3h", "2d 1h": the two largest units.
func humanDuration(_ seconds: TimeInterval) -> String {
    var remaining = Int(abs(seconds).rounded())
    let units = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
    var parts: [String] = []
    for (name, size) in units where remaining >= size && parts.count < 2 {
        parts.append("\(remaining / size)\(name)")
        remaining %= size
    }
    return parts.isEmpty ? "0s" : parts.joined(separator: " ")
}

/// Parses `90s`, `5m`, `1h`, `30d` (a bare number is seconds).
func parseDuration(_ text: String) -> TimeInterval? {
    let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
    guard let last = text.last else { return nil }
    if let unit = units[last], let value = Double(text.dropLast()), value > 0 { return value * unit }
    if let value = Double(text), value > 0 { return value }
    return nil
}

func utcString(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
}
