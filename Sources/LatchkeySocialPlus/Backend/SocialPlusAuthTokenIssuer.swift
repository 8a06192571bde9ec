public import Foundation
public import Latchkey
internal import LatchkeyJWT

/// For an app's backend (and tests): mints a secure-mode auth token for a user with the
/// network's server key (`POST /api/v4/authentication/token`, `x-server-key`), answered
/// as text/plain. Auth tokens live about 10 minutes. Never ship the server key in an app.
/// ``description`` hides the key.
///
/// ```swift
/// let issuer = SocialPlusAuthTokenIssuer(serverKey: serverKey, region: .eu)
/// let authToken = try await issuer.authToken(for: "alice")
/// ```
public struct SocialPlusAuthTokenIssuer: Sendable, CustomStringConvertible {
    /// The API's base URL.
    public let baseURL: URL
    private let serverKey: String
    private let transport: any HTTPTransport
    private let clock: any SessionClock

    /// An issuer for `region`, or for `baseURL` when given.
    public init(serverKey: String, region: SocialPlusRegion = .sg, baseURL: URL? = nil,
                transport: any HTTPTransport = URLSessionTransport(), clock: any SessionClock = SystemClock()) {
        self.baseURL = baseURL ?? region.baseURL
        self.serverKey = serverKey
        self.transport = transport
        self.clock = clock
    }

    /// A fresh auth token for `userID`.
    ///
    /// - Throws: ``/Latchkey/AuthError``: `invalidArgument` for a bad user ID, `configuration` when
    ///   the server key is refused, `rateLimited` / `transient` for 429, 5xx, no
    ///   response or an empty answer.
    public func authToken(for userID: String) async throws -> String {
        try SocialPlusLimits.check(userID, "userId", limit: SocialPlusLimits.userID)
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/api/v4/authentication/token") else {
            throw AuthError(.configuration, "cannot form the token URL from \(baseURL.absoluteString)")
        }
        let request = HTTPRequest(method: "POST", url: url,
                                  headers: ["Content-Type": "application/json", "Accept": "text/plain", "x-server-key": serverKey],
                                  body: SocialPlusJSON.body(["userId": .string(userID)]))
        let response: HTTPResponse
        do { response = try await transport.send(request) } catch {
            throw AuthError.classifying(error)
        }
        guard (200..<300).contains(response.status) else {
            throw SocialPlusErrorMapping.error(status: response.status, headers: response.headers, body: response.body,
                                               endpoint: .authTokenMinting, now: clock.now)
        }
        let token = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw SocialPlusErrorMapping.unreadable(.authTokenMinting, status: response.status, "an empty token")
        }
        return token
    }

    public var description: String { "SocialPlusAuthTokenIssuer(\(baseURL.absoluteString), serverKey: <redacted>)" }
}
