public import Foundation

/// The rule for every URL Latchkey sends credentials or trusts keys from: TLS, except
/// to a loopback address (the emulator, a loopback redirect).
///
/// Its one home: settings (``ProviderSettings/url(_:)``), the adapters' configurations
/// built in code, and the JWKS fetcher all call ``check(_:what:)``; none re-derives it.
public enum SecureURL {
    /// Checks `url`.
    ///
    /// - Throws: ``AuthError/Code/configuration`` naming `what` for a URL that is not
    ///   https and not http to 127.0.0.0/8, ::1 or `localhost`.
    public static func check(_ url: URL, what: String) throws(AuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw AuthError(.configuration, "\(what) is not an absolute URL")
        }
        if scheme == "https" { return }
        guard scheme == "http", isLoopback(host) else {
            throw AuthError(.configuration, "\(what) must use https (plain http is allowed only to a loopback address); got \(redacted(url))")
        }
    }

    /// Whether `host` is a loopback address: 127.0.0.0/8 as a dotted quad, `::1`, or
    /// `localhost`. Parsed, not prefix-matched: `127.example.com` is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part), value <= 255 else {
                return false
            }
            octets.append(value)
        }
        return octets[0] == 127
    }

    /// The URL without its query and user info, for messages.
    public static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        components?.fragment = nil
        return components?.string ?? "<url>"
    }
}
