internal import Foundation

/// `application/x-www-form-urlencoded`: OAuth token requests, authorization URLs and the
/// query of a browser's redirect.
package enum FormBody {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `name=value&…`, every byte outside the unreserved set percent-encoded.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// `text` percent-encoded outside the unreserved set.
    package static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Decodes a query string (`+` as space); the last value of a repeated name wins.
    package static func decode(_ text: Substring) -> [String: String] {
        Dictionary(pairs(text), uniquingKeysWith: { _, last in last })
    }

    /// Decodes a query string (`+` as space) into its pairs, in order, repeats kept.
    package static func pairs(_ text: Substring) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first else { return nil }
            let name = unescape(rawName)
            guard !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    private static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
