/// A social.plus network: its keys, whether it runs in secure mode, and users.
public struct SocialPlusSeed: Sendable, Codable, CustomStringConvertible {
    /// A user of the network.
    public struct User: Sendable, Codable, CustomStringConvertible {
        public var userID: String
        public var displayName: String?

        public init(userID: String, displayName: String? = nil) {
            self.userID = userID
            self.displayName = displayName
        }

        public var description: String { "SocialPlusSeed.User(\(userID))" }
    }

    /// The API key (`X-API-Key`) the SDK logs in with.
    public var apiKey: String
    /// The server key (`x-server-key`) an app's backend mints auth tokens with.
    public var serverKey: String
    /// Whether logins need an auth token minted with the server key. (Access-token logins
    /// need none: the JWT is the bearer of every call.)
    public var secureMode: Bool
    /// The HS256 secret that signs access-token-login JWTs (at least 32 bytes).
    public var accessTokenSecret: String
    /// Access token lifetime in seconds (default 2,592,000: 30 days).
    public var accessTokenLifetime: Int?
    /// Server-minted auth token lifetime in seconds (default 600).
    public var authTokenLifetime: Int?
    /// Whether a banned or deleted user's login is answered 200 with the user's
    /// `isGlobalBanned` / `isDeleted` flags set (the answer the SDKs check those flags
    /// in) instead of the `400312` / `400100` errors. Default `false`.
    public var reportsFlagsAtLogin: Bool?
    /// Users known from the start (any other user ID is created on first login, as
    /// social.plus does).
    public var users: [User]

    public init(
        apiKey: String, serverKey: String, secureMode: Bool = false, accessTokenSecret: String,
        accessTokenLifetime: Int = 2_592_000, authTokenLifetime: Int = 600, reportsFlagsAtLogin: Bool? = nil, users: [User]
    ) {
        self.apiKey = apiKey
        self.serverKey = serverKey
        self.secureMode = secureMode
        self.accessTokenSecret = accessTokenSecret
        self.accessTokenLifetime = accessTokenLifetime
        self.authTokenLifetime = authTokenLifetime
        self.reportsFlagsAtLogin = reportsFlagsAtLogin
        self.users = users
    }

    /// API key `emulator-api-key`, server key `emulator-server-key`, not in secure mode,
    /// access-token secret `latchkey-emulator-access-token-secret-0123456789`; users
    /// `alice` and `bob`.
    public static let standard = SocialPlusSeed(
        apiKey: "emulator-api-key", serverKey: "emulator-server-key",
        accessTokenSecret: "latchkey-emulator-access-token-secret-0123456789",
        users: [User(userID: "alice", displayName: "Alice"), User(userID: "bob", displayName: "Bob")]
    )

    public var description: String { "SocialPlusSeed(secure: \(secureMode), \(users.count) users)" }
}
