// Every use of the JSON toolkit in this module goes through this file and the wire
// types, so moving JSONValue to LatchkeyJSON changes imports in a few places only.
internal import Foundation
internal import LatchkeyJWT

internal import LatchkeyJSON
extension JSONObject {
    /// A member that is a non-empty string; `nil` when absent, empty or of another type.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.stringValue, !value.isEmpty else { return nil }
        return value
    }

    /// A number of seconds that may arrive as a JSON number or a numeric string
    /// (`expires_in`); clamped to `0...limit`, `nil` when absent or not a number.
    func seconds(_ name: String, limit: Double = 315_360_000) -> TimeInterval? {
        let raw: Double?
        switch self[name] {
        case .number(let value): raw = value
        case .string(let text): raw = Double(text.trimmingCharacters(in: .whitespaces))
        default: raw = nil
        }
        guard let raw, raw.isFinite else { return nil }
        return Swift.min(Swift.max(raw, 0), limit)
    }

    /// Parses a body as a JSON object, or `nil`.
    static func parsing(_ body: Data) -> JSONObject? {
        guard let value = try? JSONValue.parse(bytes: Array(body)), case .object(let object) = value else { return nil }
        return object
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }

    /// `interval` seconds, clamped to `0...10⁹`.
    static func clamped(seconds interval: TimeInterval) -> Duration {
        guard interval.isFinite else { return .zero }
        return .nanoseconds(Int64(max(0, min(interval, 1e9)) * 1e9))
    }
}
