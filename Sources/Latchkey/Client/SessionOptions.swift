/// How a client keeps its session: heartbeat, session duration, background renewal,
/// and the time margins adapters share.
public struct SessionOptions: Sendable, Hashable {
    /// How often the heartbeat checks the session with the provider (without extending
    /// it). Default 180 seconds; `nil` disables the heartbeat.
    public var heartbeatInterval: Duration?
    /// The session length sent with each login, for providers that take one (Stytch).
    /// Default 5 minutes; the provider checks it against its
    /// ``AuthProvider/sessionDurationBounds`` before any request.
    public var sessionDuration: Duration
    /// Whether to renew the access token in the background before it expires, on the
    /// provider's schedule. Default `true`.
    public var renewsProactively: Bool
    /// The shortest validity ``AuthClient/accessToken(minTTL:scope:audience:)`` and
    /// ``AuthClient/send(_:)`` want of a token by default. Unless set, the provider's
    /// ``AuthProvider/defaultMinimumTokenTTL`` (30 seconds; Auth0: 60, as Auth0.swift's),
    /// and reading it gives 30 seconds.
    public var minimumTokenTTL: Duration {
        get { explicitMinimumTokenTTL ?? .seconds(30) }
        set { explicitMinimumTokenTTL = newValue }
    }
    /// ``minimumTokenTTL`` when the app set it; `nil`: the provider's default.
    var explicitMinimumTokenTTL: Duration?

    /// The minimum time-to-live callers get when they ask for none: the app's
    /// ``minimumTokenTTL`` when it set one, else `provider`'s
    /// ``AuthProvider/defaultMinimumTokenTTL`` (the client and ``StoredTokens`` alike).
    func minimumTokenTTL(for provider: any AuthProvider) -> Duration {
        explicitMinimumTokenTTL ?? provider.defaultMinimumTokenTTL
    }
    /// The clock skew allowed when adapters check token times (`exp`, `iat`,
    /// `auth_time`). Default 60 seconds.
    public var leeway: Duration
    /// The name of the vault's entry in the secret store. Default `session`.
    public var vaultEntryName: String
    /// Whether a task sleeps until the access token expires to publish `tokenExpired`
    /// then. A ``SessionHost`` turns it off (no task per user): its clients find the
    /// token expired at the next use instead.
    var armsExpiryTimer = true

    /// Creates options.
    public init(
        heartbeatInterval: Duration? = .seconds(180), sessionDuration: Duration = .seconds(300),
        renewsProactively: Bool = true, minimumTokenTTL: Duration? = nil, leeway: Duration = .seconds(60),
        vaultEntryName: String = "session"
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.sessionDuration = sessionDuration
        self.renewsProactively = renewsProactively
        explicitMinimumTokenTTL = minimumTokenTTL
        self.leeway = leeway
        self.vaultEntryName = vaultEntryName
    }
}
