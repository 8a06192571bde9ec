public import Latchkey

/// A social.plus login: the user's ID, an optional display name, and in secure mode the
/// auth token the app's backend minted for this user. ``description`` redacts the token.
///
/// The documented limits (user ID and display name up to 50 characters, auth token up
/// to 100) are checked before any request.
///
/// ```swift
/// try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice", authToken: tokenFromBackend))
/// ```
public struct SocialPlusLogin: LoginCredentials, Hashable, CustomStringConvertible {
    /// The user's ID in the network (created on first login).
    public var userID: String
    /// The name shown to other users; `nil` leaves it as it is.
    public var displayName: String?
    /// The auth token for secure mode (a secret); `nil` in non-secure networks.
    public var authToken: String?

    /// Creates login credentials.
    public init(userID: String, displayName: String? = nil, authToken: String? = nil) {
        self.userID = userID
        self.displayName = displayName
        self.authToken = authToken
    }

    public var description: String {
        "SocialPlusLogin(userID: \(userID), displayName: \(displayName ?? "none"), authToken: \(authToken == nil ? "none" : "<redacted>"))"
    }
}

/// A social.plus access-token login: a JWT from the app's backend whose `userId` claim
/// names the user. Register an access-token handler first
/// (``SocialPlusProvider/register(accessTokenHandler:)`` or
/// ``SocialPlusAccessTokenHandlerKey``): renewals ask it for the next token.
/// ``description`` redacts the token.
public struct SocialPlusAccessTokenLogin: LoginCredentials, Hashable, CustomStringConvertible {
    /// The JWT (a secret).
    public var accessToken: String

    /// Creates access-token login credentials.
    public init(accessToken: String) {
        self.accessToken = accessToken
    }

    public var description: String { "SocialPlusAccessTokenLogin(accessToken: <redacted>)" }
}

extension SocialPlusLogin: CustomReflectable {
    /// Reflection (`dump`, debuggers) sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}

extension SocialPlusAccessTokenLogin: CustomReflectable {
    /// Reflection (`dump`, debuggers) sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}

/// The documented length limits, in characters.
enum SocialPlusLimits {
    static let userID = 50
    static let displayName = 50
    static let authToken = 100
    static let deviceID = 150

    /// Checks one value against its limit.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/invalidArgument`` naming the field and the limit
    ///   (never the value when it is a secret).
    static func check(_ value: String, _ field: String, limit: Int, secret: Bool = false) throws(AuthError) {
        guard !value.isEmpty else { throw AuthError(.invalidArgument, "\(field) must not be empty") }
        let count = value.count
        guard count <= limit else {
            let shown = secret ? "" : " (\"\(value.prefix(20))…\")"
            throw AuthError(.invalidArgument, "\(field) must be at most \(limit) characters; got \(count)\(shown)")
        }
    }

    /// Checks a user ID: its limit, and never a dot segment (``checkNotDotSegment(_:_:)``).
    static func checkUserID(_ value: String, _ field: String = "userId") throws(AuthError) {
        try check(value, field, limit: userID)
        try checkNotDotSegment(value, field)
    }

    /// Refuses `.` and `..`: the user ID is a path segment of the session check, where
    /// they would move the request (and its bearer token) to another path.
    static func checkNotDotSegment(_ value: String, _ field: String) throws(AuthError) {
        guard value != ".", value != ".." else {
            throw AuthError(.invalidArgument, "\(field) must not be \"\(value)\" (a dot segment: it would change the request's path)")
        }
    }
}
