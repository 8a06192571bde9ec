public import Foundation

/// The loopback URL a browser login redirects to: `http://127.0.0.1:<port><path>`, with a
/// fixed port.
///
/// Providers match registered redirect URLs exactly, port included (Auth0's Allowed
/// Callback URLs, Stytch's Redirect URLs), so the port is fixed and the app registers
/// ``absoluteString`` in the provider's dashboard. Only the IPv4 loopback literal is
/// accepted: the listener binds `127.0.0.1`, and `localhost` may resolve to `::1` in the
/// browser (RFC 8252 §8.3).
public struct LoopbackRedirect: Sendable, Hashable, CustomStringConvertible {
    /// The port the listener binds, 1–65535.
    public let port: UInt16
    /// The path, starting with `/` (default `/callback`).
    public let path: String

    /// A redirect to `http://127.0.0.1:<port><path>`.
    ///
    /// - Throws: ``AuthError/Code/configuration`` for port 0 (the provider could not
    ///   match an ephemeral port) or a path with anything but letters, digits and `-._~/`.
    public init(port: UInt16, path: String = "/callback") throws(AuthError) {
        guard port != 0 else {
            throw AuthError(
                .configuration, "the loopback redirect needs a fixed port (1–65535): providers match the registered URL exactly, port included")
        }
        let path = path.hasPrefix("/") ? path : "/" + path
        guard path.utf8.allSatisfy({ Self.pathBytes.contains($0) }) else {
            throw AuthError(.configuration, "the loopback redirect path may hold only letters, digits and -._~/")
        }
        self.port = port
        self.path = path
    }

    /// Parses `http://127.0.0.1:<port>/<path>`.
    ///
    /// - Throws: ``AuthError/Code/configuration`` saying what is wrong: another scheme or
    ///   host, no port, a query or fragment.
    public init(_ text: String) throws(AuthError) {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
            components.host == "127.0.0.1"
        else {
            throw AuthError(.configuration, "the redirect URI must be http://127.0.0.1:<port>/<path> (got \(text.debugDescription))")
        }
        guard let port = components.port, let fixed = UInt16(exactly: port) else {
            throw AuthError(.configuration, "the redirect URI must name its port, as registered with the provider (got \(text.debugDescription))")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil, components.password == nil else {
            throw AuthError(.configuration, "the redirect URI must not carry a query, fragment or credentials")
        }
        try self.init(port: fixed, path: components.path.isEmpty ? "/" : components.path)
    }

    /// `http://127.0.0.1:<port><path>`: the URL to register with the provider.
    public var absoluteString: String { "http://127.0.0.1:\(port)\(path)" }

    /// ``absoluteString`` as a URL.
    public var url: URL { URL(string: absoluteString) ?? URL(fileURLWithPath: "/") }

    public var description: String { absoluteString }

    private static let pathBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
}
