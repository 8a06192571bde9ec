public import Foundation
public import Latchkey
internal import LatchkeyJWT

/// For an app's backend (and tests): mints a secure-mode auth token for a user with the
/// network's server key (`x-server-key`), answered as text/plain — by default with the
/// documented `GET /api/v3/authentication/token?userId=`, or with the
/// `POST /api/v4/authentication/token` of social.plus's public sample
/// (``Form/v4Post``). Auth tokens live about 10 minutes. Never ship the server key in an
/// app. ``description`` hides the key.
///
/// ```swift
/// let issuer = SocialPlusAuthTokenIssuer(serverKey: serverKey, region: .eu)
/// let authToken = try await issuer.authToken(for: "alice")
/// ```
public struct SocialPlusAuthTokenIssuer: Sendable, CustomStringConvertible {
    /// Which of the two token endpoints the issuer calls.
    public enum Form: String, Sendable, Hashable, CaseIterable {
        /// `GET /api/v3/authentication/token?userId=<id>`: the documented form (default).
        case v3Get
        /// `POST /api/v4/authentication/token` with `{"userId"}`: the public sample's form.
        case v4Post
    }

    /// The API's base URL.
    public let baseURL: URL
    /// The endpoint the issuer calls.
    public let form: Form
    private let serverKey: String
    private let transport: any HTTPTransport
    private let clock: any SessionClock

    /// An issuer for `region`, or for `baseURL` when given, calling the endpoint `form` names.
    public init(
        serverKey: String, region: SocialPlusRegion = .sg, baseURL: URL? = nil, form: Form = .v3Get,
        transport: any HTTPTransport = DefaultTransport.makeSingleAttempt(), clock: any SessionClock = SystemClock()
    ) {
        self.baseURL = baseURL ?? region.baseURL
        self.form = form
        self.serverKey = serverKey
        self.transport = transport
        self.clock = clock
    }

    /// A fresh auth token for `userID`.
    ///
    /// - Throws: ``/Latchkey/AuthError``: `invalidArgument` for a bad user ID, `configuration` when
    ///   the base URL is neither https nor http to a loopback address (``/Latchkey/SecureURL``,
    ///   checked before anything is sent) or the server key is refused, `rateLimited` / `transient` for 429, 5xx, no
    ///   response or an empty answer.
    public func authToken(for userID: String) async throws -> String {
        // The server key goes there: the same URL rule as every configuration's. Checked
        // here because the initializer does not throw.
        try SecureURL.check(baseURL, what: "the social.plus base URL")
        try SocialPlusLimits.checkUserID(userID)
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let request: TransportRequest
        switch form {
        case .v3Get:
            guard var components = URLComponents(string: base + "/api/v3/authentication/token") else {
                throw AuthError(.configuration, "cannot form the token URL from \(baseURL.absoluteString)")
            }
            components.queryItems = [URLQueryItem(name: "userId", value: userID)]
            // URLComponents encodes `&` and `=` in a value but leaves `+`, which a server
            // reading the query as a form takes for a space.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            guard let url = components.url else {
                throw AuthError(.configuration, "cannot form the token URL from \(baseURL.absoluteString)")
            }
            request = TransportRequest(
                method: "GET", url: url, headers: ["Accept": "text/plain", "x-server-key": serverKey],
                operation: "social.plus api/v3/authentication/token")
        case .v4Post:
            guard let url = URL(string: base + "/api/v4/authentication/token") else {
                throw AuthError(.configuration, "cannot form the token URL from \(baseURL.absoluteString)")
            }
            request = TransportRequest(
                method: "POST", url: url,
                headers: ["Content-Type": "application/json", "Accept": "text/plain", "x-server-key": serverKey],
                body: SocialPlusJSON.body(["userId": .string(userID)]), operation: "social.plus api/v4/authentication/token")
        }
        let response: TransportResponse
        do { response = try await transport.send(request) } catch {
            throw AuthError.classifying(error)
        }
        guard (200..<300).contains(response.status) else {
            throw SocialPlusErrorMapping.error(
                status: response.status, headers: response.headers, body: response.body,
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
