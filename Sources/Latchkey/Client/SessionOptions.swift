/// How a client keeps its session: heartbeat, session duration, background renewal.
public struct SessionOptions: Sendable, Hashable {
    /// How often the heartbeat checks the session with the provider (without extending
    /// it). Default 180 seconds; `nil` disables the heartbeat.
    public var heartbeatInterval: Duration?
    /// The session length sent with each login, for providers that extend sessions.
    /// Default 5 minutes; must lie within ``SessionOptions/durationBounds``.
    public var sessionDuration: Duration
    /// Whether to renew the access token in the background before it expires, on the
    /// provider's schedule. Default `true`.
    public var renewsProactively: Bool
    /// The shortest validity ``AuthClient/send(_:)`` wants of the token it attaches.
    /// Default 30 seconds.
    public var minimumTokenTTL: Duration
    /// The name of the vault's entry in the secret store. Default `session`.
    public var vaultEntryName: String

    /// The range the providers accept for a session duration: 5 minutes to 366 days.
    public static let durationBounds: ClosedRange<Duration> = .seconds(5 * 60) ... .seconds(366 * 24 * 3600)

    /// Creates options.
    public init(heartbeatInterval: Duration? = .seconds(180), sessionDuration: Duration = .seconds(300),
                renewsProactively: Bool = true, minimumTokenTTL: Duration = .seconds(30), vaultEntryName: String = "session") {
        self.heartbeatInterval = heartbeatInterval
        self.sessionDuration = sessionDuration
        self.renewsProactively = renewsProactively
        self.minimumTokenTTL = minimumTokenTTL
        self.vaultEntryName = vaultEntryName
    }

    /// Checks `duration` against ``durationBounds``.
    ///
    /// - Throws: ``AuthError/Code/invalidArgument`` when it is out of range.
    public static func checkDuration(_ duration: Duration) throws(AuthError) {
        guard durationBounds.contains(duration) else {
            throw AuthError(.invalidArgument, "a session duration must be between 5 minutes and 366 days (527,040 minutes); got \(duration)")
        }
    }
}
